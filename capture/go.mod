module github.com/goheap/goheap/capture

go 1.19
