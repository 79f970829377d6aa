module github.com/endodoi/endodoi

go 1.26.8
