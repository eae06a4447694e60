module github.com/allot-go/allot

go 1.26.0

require (
	github.com/cockroachdb/datadriven v1.0.3 // indirect
	github.com/google/btree v1.1.3 // indirect
	github.com/leanovate/gopter v0.2.11 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	golang.org/x/exp v0.0.0-20261014143641-f0251eb4aa3e // indirect
)
