package offer

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/allot-go/allot/resources"
)

func jsonOps(t testing.TB) []Operation {
	vol := resources.MustParse("disk(db)[id:data,path:/v]:100", "*").Slice()[0]
	return []Operation{
		Launch{Tasks: []Task{{ID: "t1", Resources: resources.MustParse("cpus:1;mem:128;ports:[31000-31001]", "*")}, {ID: "t2", Resources: resources.MustParse("cpus:0.5", "*")}},
			Executor: resources.MustParse("cpus:0.1", "*")},
		Launch{Tasks: []Task{}},
		&Reserve{Resources: resources.MustParse("cpus(reservations: [(DYNAMIC,web,ops)]):2", "*")},
		Reserve{Resources: resources.MustParse("cpus(reservations: [(DYNAMIC,web,ops), (DYNAMIC,web/a,ops)]):2", "*"), Source: resources.MustParse("cpus(reservations: [(DYNAMIC,web,ops)]):2", "*")},
		Unreserve{Resources: resources.MustParse(`mem(reservations: [(DYNAMIC,web,ops,{k: v})]):64`, "*")},
		Create{Volumes: resources.MustParse("disk(db)[id:data,path:/v]:100", "*")},
		&Destroy{Volumes: resources.MustParse("disk(db)[id:data,path:/v]:100", "*")},
		GrowVolume{Volume: vol, Addition: resources.MustParse("disk(db):50", "*")},
		ShrinkVolume{Volume: vol, Subtract: resources.MustScalar(49.5)},
	}
}

// Every operation round-trips through JSON to an equal one.
func TestOperationJSONRoundTrip(t *testing.T) {
	for _, op := range jsonOps(t) {
		data, err := json.Marshal(OperationToJSON(op))
		require.NoError(t, err)
		var j *OperationJSON
		require.NoError(t, json.Unmarshal(data, &j), "%s", data)
		back, err := j.Operation()
		require.NoError(t, err, "%s", data)
		want, _ := deref(op)
		require.Equal(t, want.String(), back.String(), "%s", data)
		require.Equal(t, want.Kind(), back.Kind())
		again, _ := json.Marshal(OperationToJSON(back))
		require.JSONEq(t, string(data), string(again))
	}
}

// The text is Mesos's type name, with only the fields the operation uses.
func TestOperationJSONText(t *testing.T) {
	data, err := json.Marshal(OperationToJSON(Reserve{Resources: resources.MustParse("cpus(web):2", "*")}))
	require.NoError(t, err)
	require.Equal(t, `{"type":"RESERVE","resources":"cpus(web):2"}`, string(data))
	data, err = json.Marshal(OperationToJSON(Launch{}))
	require.NoError(t, err)
	require.Equal(t, `{"type":"LAUNCH"}`, string(data))
}

// A nil operation is null, and null is a nil operation.
func TestOperationJSONNil(t *testing.T) {
	var nilLaunch *Launch
	for _, op := range []Operation{nil, nilLaunch} {
		require.Nil(t, OperationToJSON(op))
	}
	var j *OperationJSON
	require.NoError(t, json.Unmarshal([]byte("null"), &j))
	op, err := j.Operation()
	require.NoError(t, err)
	require.Nil(t, op)
}

// Bad input names the problem.
func TestOperationJSONErrors(t *testing.T) {
	cases := []struct {
		json, want string
		is         error
	}{
		{`{"type":"DANCE"}`, `unknown operation type "DANCE"`, ErrUnsupported},
		{`{}`, `unknown operation type ""`, ErrUnsupported},
		{`{"type":"RESERVE","resources":"cpus:"}`, "resources:", nil},
		{`{"type":"LAUNCH","tasks":[{"id":"a","resources":"cpus:1"},{"id":"b","resources":"mem:x"}]}`, "task 1:", nil},
		{`{"type":"GROW_VOLUME","volume":"disk:1;disk(r):2","addition":"disk:1"}`, "is not one resource", nil},
		{`{"type":"SHRINK_VOLUME","volume":"disk(db)[id:d,path:/v]:10","subtract":"abc"}`, "subtract:", nil},
	}
	for _, c := range cases {
		var j OperationJSON
		require.NoError(t, json.Unmarshal([]byte(c.json), &j))
		_, err := j.Operation()
		require.Error(t, err, c.json)
		require.True(t, strings.Contains(err.Error(), c.want), "%s: %v, want %q", c.json, err, c.want)
		if c.is != nil {
			require.True(t, errors.Is(err, c.is), "%s: %v is not %v", c.json, err, c.is)
		}
	}
}

// Whatever JSON reads as an operation writes back to JSON that reads as
// the same operation, and decoding never panics.
func FuzzOperationJSON(f *testing.F) {
	for _, op := range jsonOps(f) {
		data, _ := json.Marshal(OperationToJSON(op))
		f.Add(data)
	}
	f.Add([]byte(`{"type":"SHRINK_VOLUME","volume":"disk","subtract":"-1"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var j *OperationJSON
		if json.Unmarshal(data, &j) != nil {
			return
		}
		op, err := j.Operation()
		if err != nil || op == nil {
			return
		}
		first := OperationToJSON(op)
		back, err := first.Operation()
		if err != nil {
			t.Fatalf("%s: written as %+v, which does not read back: %v", data, first, err)
		}
		if second := OperationToJSON(back); !reflect.DeepEqual(first, second) {
			t.Fatalf("%s: written as %+v, then %+v", data, first, second)
		}
	})
}

// The examples in OperationJSON's doc read as operations.
func TestOperationJSONDocExamples(t *testing.T) {
	for _, text := range []string{
		`{"type":"LAUNCH","tasks":[{"id":"t1","resources":"cpus:1; mem:128"}]}`,
		`{"type":"RESERVE","resources":"cpus(reservations: [(DYNAMIC,web,ops)]):2"}`,
		`{"type":"SHRINK_VOLUME","volume":"disk(db)[id:data,path:/v]:100","subtract":"50"}`,
	} {
		var j OperationJSON
		require.NoError(t, json.Unmarshal([]byte(text), &j))
		op, err := j.Operation()
		require.NoError(t, err, text)
		data, _ := json.Marshal(OperationToJSON(op))
		require.JSONEq(t, text, string(data))
	}
}
