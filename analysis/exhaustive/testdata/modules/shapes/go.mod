module example.net/shapes

go 1.26
