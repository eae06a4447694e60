module github.com/allot-go/allot

go 1.24.0

require (
	github.com/cockroachdb/datadriven v1.0.3
	github.com/google/btree v1.1.3
	github.com/leanovate/gopter v0.2.11
	github.com/stretchr/testify v1.12.1
)

require (
	github.com/pmezard/go-difflib v1.0.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
