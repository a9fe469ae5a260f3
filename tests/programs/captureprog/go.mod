module captureprog

go 1.19

require github.com/goheap/goheap/capture v0.0.0

replace github.com/goheap/goheap/capture => ../../../capture
