// Package examples holds runnable programs, one per scenario; each lives in
// its own directory and is run with go run ./examples/NAME.
package examples
