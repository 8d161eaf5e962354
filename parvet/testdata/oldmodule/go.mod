module oldmodule

go 1.18
