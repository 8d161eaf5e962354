module github.com/gopar-dev/gopar

go 1.23
