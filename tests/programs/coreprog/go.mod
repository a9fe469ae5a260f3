module coreprog

go 1.19
