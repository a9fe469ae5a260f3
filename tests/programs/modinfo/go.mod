module example.com/goheap/modinfo

go 1.19

require example.com/greeter v1.2.3

replace example.com/greeter v1.2.3 => ./greeter
