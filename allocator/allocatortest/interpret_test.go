package allocatortest

import "testing"

// Every kind has a name and a handler: a Harness steps over an event
// whose kind has no handler as over an unknown kind, checking nothing the
// kind is for.
func TestEveryKindHasAHandler(t *testing.T) {
	for k := range NumKinds {
		if kindNames[k] == "" {
			t.Errorf("kind %d has no name in kindNames", k)
		}
		if handlers[k] == nil {
			t.Errorf("kind %s has no handler in handlers", k)
		}
	}
	for i, c := range badCases {
		if c == nil {
			t.Errorf("BadInput case %d has no call in badCases", i)
		}
	}
}
