package volume

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// Errors returned by this package, wrapped with detail; test with errors.Is.
var (
	// ErrInvalidPersistenceID: a persistence id breaks the naming rules.
	ErrInvalidPersistenceID = errors.New("volume: invalid persistence id")
	// ErrInvalidDisk: disk metadata is inconsistent (see Disk.Validate).
	ErrInvalidDisk = errors.New("volume: invalid disk")
)

// MaxPersistenceIDLength bounds persistence ids, which become directory names
// on the agent.
const MaxPersistenceIDLength = 255

// SourceType is the kind of storage a disk resource comes from.
type SourceType uint8

const (
	// Path is a directory on a shared file system; divisible.
	Path SourceType = iota + 1
	// Mount is a whole mounted file system; offered and consumed whole.
	Mount
	// Block is a raw block device with a volume; consumed whole.
	Block
	// Raw is unformatted storage of a resource provider.
	Raw
)

// String returns Mesos's name of the source type.
func (t SourceType) String() string {
	switch t {
	case Path:
		return "PATH"
	case Mount:
		return "MOUNT"
	case Block:
		return "BLOCK"
	case Raw:
		return "RAW"
	}
	return fmt.Sprintf("SourceType(%d)", uint8(t))
}

// ParseSourceType is the inverse of SourceType.String.
func ParseSourceType(s string) (SourceType, bool) {
	switch s {
	case "PATH":
		return Path, true
	case "MOUNT":
		return Mount, true
	case "BLOCK":
		return Block, true
	case "RAW":
		return Raw, true
	}
	return 0, false
}

// Source says where a disk resource comes from. Root applies to PATH and
// MOUNT; ID to BLOCK and RAW (optional for RAW).
type Source struct {
	Type SourceType
	Root string
	ID   string
}

// Persistence marks a disk resource as a persistent volume.
type Persistence struct {
	ID string
	// Principal that created the volume; "" when none.
	Principal string
}

// Mode is a volume's access mode.
type Mode uint8

const (
	// RW is read-write, the only mode persistent volumes may be created with.
	RW Mode = iota + 1
	// RO is read-only.
	RO
)

// String returns "RW" or "RO".
func (m Mode) String() string {
	switch m {
	case RW:
		return "RW"
	case RO:
		return "RO"
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// Volume says where a persistent volume is mounted in a container, and how.
type Volume struct {
	ContainerPath string
	Mode          Mode
}

// Disk is the disk-specific metadata of a disk resource. All parts are
// optional: plain reserved disk has none; a persistent volume has Persistence
// and Volume; disks from MOUNT or BLOCK storage have a Source.
type Disk struct {
	Source      *Source
	Persistence *Persistence
	Volume      *Volume
}

// IsEmpty reports whether d carries no metadata at all.
func (d *Disk) IsEmpty() bool {
	return d == nil || (d.Source == nil && d.Persistence == nil && d.Volume == nil)
}

// IsPersistentVolume reports whether d describes a persistent volume.
func (d *Disk) IsPersistentVolume() bool { return d != nil && d.Persistence != nil }

// SourceType returns the source type, or 0 when the disk has no source.
func (d *Disk) SourceType() SourceType {
	if d == nil || d.Source == nil {
		return 0
	}
	return d.Source.Type
}

// Equal reports whether two disks are the same for resource arithmetic:
// same source and same persistence id. The volume's container path and mode,
// and the persistence principal, are not compared, as in Mesos.
func (d *Disk) Equal(o *Disk) bool {
	if d.IsEmpty() || o.IsEmpty() {
		return d.IsEmpty() && o.IsEmpty()
	}
	if (d.Source == nil) != (o.Source == nil) || (d.Source != nil && *d.Source != *o.Source) {
		return false
	}
	if (d.Persistence == nil) != (o.Persistence == nil) {
		return false
	}
	return d.Persistence == nil || d.Persistence.ID == o.Persistence.ID
}

// Divisible reports whether a disk resource with this metadata can be split
// into smaller parts (and merged with equal parts): false for MOUNT and BLOCK
// sources and for RAW sources with an id. Persistent volumes are divisible by
// this test; their merging is ruled by the resources package.
func (d *Disk) Divisible() bool {
	switch d.SourceType() {
	case Mount, Block:
		return false
	case Raw:
		return d.Source.ID == ""
	}
	return true
}

// Clone returns a deep copy of d.
func (d *Disk) Clone() *Disk {
	if d == nil {
		return nil
	}
	c := &Disk{}
	if d.Source != nil {
		s := *d.Source
		c.Source = &s
	}
	if d.Persistence != nil {
		p := *d.Persistence
		c.Persistence = &p
	}
	if d.Volume != nil {
		v := *d.Volume
		c.Volume = &v
	}
	return c
}

// Validate checks the disk metadata on its own: a known source type with the
// fields it needs, a valid persistence id, a volume only together with
// persistence and with a known mode.
func (d *Disk) Validate() error {
	if d == nil {
		return nil
	}
	if s := d.Source; s != nil {
		switch s.Type {
		case Path, Mount:
			if s.ID != "" {
				return fmt.Errorf("%w: %s source cannot have an id", ErrInvalidDisk, s.Type)
			}
		case Block:
			if s.Root != "" {
				return fmt.Errorf("%w: BLOCK source cannot have a root", ErrInvalidDisk)
			}
		case Raw:
			if s.Root != "" {
				return fmt.Errorf("%w: RAW source cannot have a root", ErrInvalidDisk)
			}
		default:
			return fmt.Errorf("%w: unknown source type %d", ErrInvalidDisk, s.Type)
		}
		if (s.Type == Path || s.Type == Mount) && s.Root == "" {
			return fmt.Errorf("%w: %s source needs a root", ErrInvalidDisk, s.Type)
		}
	}
	if d.Persistence != nil {
		if err := ValidatePersistenceID(d.Persistence.ID); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidDisk, err)
		}
	}
	if v := d.Volume; v != nil {
		if d.Persistence == nil {
			return fmt.Errorf("%w: non-persistent volume not supported", ErrInvalidDisk)
		}
		if v.Mode != RW && v.Mode != RO {
			return fmt.Errorf("%w: unknown volume mode %d", ErrInvalidDisk, v.Mode)
		}
		if v.ContainerPath == "" {
			return fmt.Errorf("%w: volume without container path", ErrInvalidDisk)
		}
	}
	return nil
}

// ValidatePersistenceID checks a persistence id: it must be non-empty, at most
// MaxPersistenceIDLength bytes, not "." or "..", and contain no '/', '\' or
// control or whitespace characters, since it names a directory on the agent.
func ValidatePersistenceID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("%w: empty", ErrInvalidPersistenceID)
	case len(id) > MaxPersistenceIDLength:
		return fmt.Errorf("%w: longer than %d bytes", ErrInvalidPersistenceID, MaxPersistenceIDLength)
	case id == "." || id == "..":
		return fmt.Errorf("%w %q: reserved name", ErrInvalidPersistenceID, id)
	case strings.ContainsAny(id, `/\`):
		return fmt.Errorf("%w %q: contains a path separator", ErrInvalidPersistenceID, id)
	}
	for _, c := range id {
		if unicode.IsControl(c) || unicode.IsSpace(c) {
			return fmt.Errorf("%w %q: contains control or whitespace character %q", ErrInvalidPersistenceID, id, c)
		}
	}
	return nil
}

// String renders the disk as Mesos does inside a resource's text:
// [MOUNT:/mnt,id:/data] or [id:data:/path] style fragments.
func (d *Disk) String() string {
	if d.IsEmpty() {
		return ""
	}
	var parts []string
	if s := d.Source; s != nil {
		switch {
		case s.Root != "":
			parts = append(parts, s.Type.String()+":"+s.Root)
		case s.ID != "":
			parts = append(parts, s.Type.String()+"(id:"+s.ID+")")
		default:
			parts = append(parts, s.Type.String())
		}
	}
	if p := d.Persistence; p != nil {
		part := p.ID
		if d.Volume != nil {
			part += ":" + d.Volume.ContainerPath
			if d.Volume.Mode == RO {
				part += ":RO"
			}
		}
		parts = append(parts, part)
	}
	return "[" + strings.Join(parts, ",") + "]"
}
