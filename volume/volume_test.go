package volume

import (
	"errors"
	"strings"
	"testing"
)

func TestSourceTypeString(t *testing.T) {
	for _, typ := range []SourceType{Path, Mount, Block, Raw} {
		back, ok := ParseSourceType(typ.String())
		if !ok || back != typ {
			t.Errorf("ParseSourceType(%q) = %v, %v", typ.String(), back, ok)
		}
	}
	if got := SourceType(9).String(); got != "SourceType(9)" {
		t.Errorf("unknown source type prints %q", got)
	}
	for _, bad := range []string{"", "path", "Mount", "LVM"} {
		if _, ok := ParseSourceType(bad); ok {
			t.Errorf("ParseSourceType(%q) succeeded", bad)
		}
	}
	if RW.String() != "RW" || RO.String() != "RO" || Mode(0).String() != "Mode(0)" {
		t.Error("Mode.String is wrong")
	}
}

func pv(id, path string) *Disk {
	return &Disk{Persistence: &Persistence{ID: id}, Volume: &Volume{ContainerPath: path, Mode: RW}}
}

func TestDiskPredicates(t *testing.T) {
	var none *Disk
	if !none.IsEmpty() || !(&Disk{}).IsEmpty() || none.IsPersistentVolume() || none.SourceType() != 0 || !none.Divisible() {
		t.Error("nil or empty disk is not plain disk")
	}
	if (&Disk{Source: &Source{Type: Path, Root: "/a"}}).IsEmpty() {
		t.Error("disk with a source is empty")
	}
	if !pv("id", "p").IsPersistentVolume() {
		t.Error("volume is not a persistent volume")
	}
	divisible := map[*Disk]bool{
		{Source: &Source{Type: Path, Root: "/a"}}:  true,
		{Source: &Source{Type: Mount, Root: "/a"}}: false,
		{Source: &Source{Type: Block, ID: "b"}}:    false,
		{Source: &Source{Type: Block}}:             false,
		{Source: &Source{Type: Raw}}:               true,
		{Source: &Source{Type: Raw, ID: "r"}}:      false,
	}
	for d, want := range divisible {
		if got := d.Divisible(); got != want {
			t.Errorf("%v.Divisible() = %v, want %v", d, got, want)
		}
	}
}

func TestDiskEqual(t *testing.T) {
	mnt := func(root string) *Disk { return &Disk{Source: &Source{Type: Mount, Root: root}} }
	tests := []struct {
		name string
		a, b *Disk
		want bool
	}{
		{"nil and nil", nil, nil, true},
		{"nil and empty", nil, &Disk{}, true},
		{"nil and source", nil, mnt("/a"), false},
		{"same source", mnt("/a"), mnt("/a"), true},
		{"other root", mnt("/a"), mnt("/b"), false},
		{"other type", mnt("/a"), &Disk{Source: &Source{Type: Path, Root: "/a"}}, false},
		{"same id, other path", pv("v", "a"), pv("v", "b"), true},
		{"other id", pv("v", "a"), pv("w", "a"), false},
		{"persistence and none", pv("v", "a"), nil, false},
		{"principal ignored", &Disk{Persistence: &Persistence{ID: "v", Principal: "p"}}, &Disk{Persistence: &Persistence{ID: "v"}}, true},
		{"volume on mount", &Disk{Source: mnt("/a").Source, Persistence: &Persistence{ID: "v"}}, pv("v", "x"), false},
	}
	for _, tt := range tests {
		if got := tt.a.Equal(tt.b); got != tt.want {
			t.Errorf("%s: Equal = %v, want %v", tt.name, got, tt.want)
		}
		if got := tt.b.Equal(tt.a); got != tt.want {
			t.Errorf("%s: Equal not symmetric", tt.name)
		}
	}
}

func TestDiskClone(t *testing.T) {
	var none *Disk
	if none.Clone() != nil {
		t.Error("nil clone is not nil")
	}
	d := &Disk{Source: &Source{Type: Mount, Root: "/a"}, Persistence: &Persistence{ID: "v", Principal: "p"}, Volume: &Volume{ContainerPath: "x", Mode: RO}}
	c := d.Clone()
	if !c.Equal(d) || c.Source == d.Source || c.Persistence == d.Persistence || c.Volume == d.Volume {
		t.Fatal("Clone shares memory or differs")
	}
	c.Source.Root, c.Persistence.ID, c.Volume.Mode = "/b", "w", RW
	if d.Source.Root != "/a" || d.Persistence.ID != "v" || d.Volume.Mode != RO {
		t.Error("changing the clone changed the original")
	}
}

func TestDiskValidate(t *testing.T) {
	tests := []struct {
		name string
		d    *Disk
		rule string
	}{
		{"nil", nil, ""},
		{"empty", &Disk{}, ""},
		{"path", &Disk{Source: &Source{Type: Path, Root: "/data"}}, ""},
		{"mount", &Disk{Source: &Source{Type: Mount, Root: "/mnt"}}, ""},
		{"block", &Disk{Source: &Source{Type: Block}}, ""},
		{"block id", &Disk{Source: &Source{Type: Block, ID: "b1"}}, ""},
		{"raw", &Disk{Source: &Source{Type: Raw}}, ""},
		{"raw id", &Disk{Source: &Source{Type: Raw, ID: "r1"}}, ""},
		{"volume", pv("v", "data"), ""},
		{"ro volume", &Disk{Persistence: &Persistence{ID: "v"}, Volume: &Volume{ContainerPath: "d", Mode: RO}}, ""},
		{"persistence only", &Disk{Persistence: &Persistence{ID: "v"}}, ""},
		{"volume on mount", &Disk{Source: &Source{Type: Mount, Root: "/mnt"}, Persistence: &Persistence{ID: "v"}, Volume: &Volume{ContainerPath: "d", Mode: RW}}, ""},
		{"path without root", &Disk{Source: &Source{Type: Path}}, "needs a root"},
		{"mount without root", &Disk{Source: &Source{Type: Mount}}, "needs a root"},
		{"mount with id", &Disk{Source: &Source{Type: Mount, Root: "/m", ID: "x"}}, "cannot have an id"},
		{"block with root", &Disk{Source: &Source{Type: Block, Root: "/b"}}, "cannot have a root"},
		{"raw with root", &Disk{Source: &Source{Type: Raw, Root: "/r"}}, "cannot have a root"},
		{"unknown source", &Disk{Source: &Source{Type: 9}}, "unknown source type"},
		{"bad persistence id", &Disk{Persistence: &Persistence{ID: ".."}}, "reserved name"},
		{"volume without persistence", &Disk{Volume: &Volume{ContainerPath: "d", Mode: RW}}, "non-persistent volume"},
		{"unknown mode", &Disk{Persistence: &Persistence{ID: "v"}, Volume: &Volume{ContainerPath: "d"}}, "unknown volume mode"},
		{"no container path", &Disk{Persistence: &Persistence{ID: "v"}, Volume: &Volume{Mode: RW}}, "container path"},
	}
	for _, tt := range tests {
		err := tt.d.Validate()
		if tt.rule == "" {
			if err != nil {
				t.Errorf("%s: Validate = %v", tt.name, err)
			}
			continue
		}
		if !errors.Is(err, ErrInvalidDisk) || !strings.Contains(err.Error(), tt.rule) {
			t.Errorf("%s: Validate = %v, want ErrInvalidDisk naming %q", tt.name, err, tt.rule)
		}
	}
	err := (&Disk{Persistence: &Persistence{ID: ""}}).Validate()
	if !errors.Is(err, ErrInvalidPersistenceID) {
		t.Errorf("empty persistence id: %v does not wrap ErrInvalidPersistenceID", err)
	}
}

func TestValidatePersistenceID(t *testing.T) {
	for _, id := range []string{"a", "pg-data", "a.b", "...", "ünï", "A_1", strings.Repeat("x", MaxPersistenceIDLength)} {
		if err := ValidatePersistenceID(id); err != nil {
			t.Errorf("ValidatePersistenceID(%q) = %v", id, err)
		}
	}
	invalid := map[string]string{
		"":      "empty",
		".":     "reserved",
		"..":    "reserved",
		"/":     "path separator",
		"a/b":   "path separator",
		`a\b`:   "path separator",
		"a\x00": "control",
		"a\nb":  "control",
		"a\x7f": "control",
		"a b":   "whitespace",
		strings.Repeat("x", MaxPersistenceIDLength+1): "longer than",
	}
	for id, rule := range invalid {
		err := ValidatePersistenceID(id)
		if !errors.Is(err, ErrInvalidPersistenceID) || !strings.Contains(err.Error(), rule) {
			t.Errorf("ValidatePersistenceID(%.20q) = %v, want ErrInvalidPersistenceID naming %q", id, err, rule)
		}
	}
}

func TestDiskString(t *testing.T) {
	tests := []struct {
		d    *Disk
		want string
	}{
		{nil, ""},
		{&Disk{Source: &Source{Type: Mount, Root: "/mnt"}}, "[MOUNT:/mnt]"},
		{&Disk{Source: &Source{Type: Raw, ID: "r1"}}, "[RAW(id:r1)]"},
		{&Disk{Source: &Source{Type: Block}}, "[BLOCK]"},
		{pv("data", "/path"), "[data:/path]"},
		{&Disk{Source: &Source{Type: Mount, Root: "/mnt"}, Persistence: &Persistence{ID: "v"}, Volume: &Volume{ContainerPath: "p", Mode: RO}}, "[MOUNT:/mnt,v:p:RO]"},
	}
	for _, tt := range tests {
		if got := tt.d.String(); got != tt.want {
			t.Errorf("String = %q, want %q", got, tt.want)
		}
	}
}
