module github.com/allot-go/allot/examples/replicated

go 1.26.0

require (
	github.com/allot-go/allot v0.0.0
	go.etcd.io/raft/v3 v3.7.0
	google.golang.org/protobuf v1.36.11
)

require github.com/google/btree v1.1.3 // indirect

replace github.com/allot-go/allot => ../..
