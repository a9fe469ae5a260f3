module example.com/greeter

go 1.19
