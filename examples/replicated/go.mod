module github.com/allot-go/allot/examples/replicated

go 1.24.0

require (
	github.com/allot-go/allot v0.0.0
	go.etcd.io/raft/v3 v3.6.0
)

require (
	github.com/gogo/protobuf v1.3.2 // indirect
	github.com/golang/protobuf v1.5.4 // indirect
	github.com/google/btree v1.1.3 // indirect
	google.golang.org/protobuf v1.36.11 // indirect
)

replace github.com/allot-go/allot => ../..
