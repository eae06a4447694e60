package allocator_test

import (
	"testing"

	"github.com/allot-go/allot/allocator/allocatortest"
)

// maxFuzzEvents bounds one fuzz input, so that every input runs quickly.
const maxFuzzEvents = 300

// FuzzAllocatorEvents feeds the allocator a byte-coded event stream (see
// allocatortest.Decode: two bytes of seed, then five bytes an event) through
// a Harness, which checks the accounting after every event. No input may
// panic or break a property. The seed corpus is under
// testdata/fuzz/FuzzAllocatorEvents; run it longer with
//
//	go test -run XXX -fuzz FuzzAllocatorEvents -fuzztime 5m ./allocator
func FuzzAllocatorEvents(f *testing.F) {
	s, err := allocatortest.ParseSequence(recorded)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(allocatortest.Encode(s))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		s := allocatortest.Decode(data)
		if len(s.Events) > maxFuzzEvents {
			s.Events = s.Events[:maxFuzzEvents]
		}
		if err := allocatortest.RunSequence(propertyConfigs[0].Options, s); err != nil {
			t.Fatalf("%v\nsequence:\n%s", err, s)
		}
	})
}
