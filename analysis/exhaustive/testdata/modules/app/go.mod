module example.net/app

go 1.26

require example.net/shapes v0.0.0

replace example.net/shapes => ../shapes
