package resources

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/allot-go/allot/internal/fixed"
	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/volume"
)

// The JSON shapes below follow Mesos's Resource protobuf as rendered by its
// JSON API, so resources can be exchanged with Mesos-speaking tools.

type jsonResource struct {
	Name           string            `json:"name"`
	Type           string            `json:"type"`
	Scalar         *jsonScalar       `json:"scalar,omitempty"`
	Ranges         *jsonRanges       `json:"ranges,omitempty"`
	Set            *jsonSet          `json:"set,omitempty"`
	Role           string            `json:"role,omitempty"`
	Reservation    *jsonReservation  `json:"reservation,omitempty"`
	Reservations   []jsonReservation `json:"reservations,omitempty"`
	Disk           *jsonDisk         `json:"disk,omitempty"`
	Revocable      *struct{}         `json:"revocable,omitempty"`
	Shared         *struct{}         `json:"shared,omitempty"`
	ProviderID     *jsonValue        `json:"provider_id,omitempty"`
	AllocationInfo *jsonAllocation   `json:"allocation_info,omitempty"`
}

type jsonScalar struct {
	Value json.Number `json:"value"`
}

type jsonRanges struct {
	Range []jsonRange `json:"range"`
}

type jsonRange struct {
	Begin uint64 `json:"begin"`
	End   uint64 `json:"end"`
}

type jsonSet struct {
	Item []string `json:"item"`
}

type jsonValue struct {
	Value string `json:"value"`
}

type jsonAllocation struct {
	Role string `json:"role"`
}

type jsonReservation struct {
	Type      string      `json:"type,omitempty"`
	Role      string      `json:"role,omitempty"`
	Principal string      `json:"principal,omitempty"`
	Labels    *jsonLabels `json:"labels,omitempty"`
}

type jsonLabels struct {
	Labels []jsonLabel `json:"labels"`
}

type jsonLabel struct {
	Key   string `json:"key"`
	Value string `json:"value,omitempty"`
}

type jsonDisk struct {
	Source      *jsonSource      `json:"source,omitempty"`
	Persistence *jsonPersistence `json:"persistence,omitempty"`
	Volume      *jsonVolume      `json:"volume,omitempty"`
}

type jsonSource struct {
	Type  string    `json:"type"`
	Path  *jsonRoot `json:"path,omitempty"`
	Mount *jsonRoot `json:"mount,omitempty"`
	ID    string    `json:"id,omitempty"`
}

type jsonRoot struct {
	Root string `json:"root"`
}

type jsonPersistence struct {
	ID        string `json:"id"`
	Principal string `json:"principal,omitempty"`
}

type jsonVolume struct {
	ContainerPath string `json:"container_path"`
	Mode          string `json:"mode"`
}

// MarshalJSON renders the resources as a JSON array of Mesos Resource
// objects. A shared resource with n copies appears n times.
func (rs Resources) MarshalJSON() ([]byte, error) {
	out := make([]jsonResource, 0, len(rs.entries))
	for i := range rs.entries {
		e := &rs.entries[i]
		r := e.resource()
		j := toJSON(&r)
		for range e.copies() {
			out = append(out, j)
		}
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads a JSON array of Mesos Resource objects (see Parse);
// objects without role or reservations are unreserved. On error the receiver
// is unchanged; JSON null leaves it unchanged too, as encoding/json's
// convention asks.
func (rs *Resources) UnmarshalJSON(data []byte) error {
	if string(bytes.TrimSpace(data)) == "null" {
		return nil
	}
	r, err := parseJSON(data, "")
	if err != nil {
		return err
	}
	*rs = r
	return nil
}

func toJSON(r *Resource) jsonResource {
	j := jsonResource{Name: r.Name, Type: r.Type.String()}
	switch r.Type {
	case ScalarType:
		j.Scalar = &jsonScalar{Value: json.Number(fixed.Format(int64(r.Scalar)))}
	case RangesType:
		j.Ranges = &jsonRanges{Range: []jsonRange{}}
		for _, x := range r.Ranges {
			j.Ranges.Range = append(j.Ranges.Range, jsonRange(x))
		}
	case SetType:
		j.Set = &jsonSet{Item: append([]string{}, r.Set...)}
	}
	for _, res := range r.Reservations {
		jr := jsonReservation{Type: res.Type.String(), Role: res.Role, Principal: res.Principal}
		if res.Labels != nil {
			jr.Labels = &jsonLabels{Labels: []jsonLabel{}}
			for _, l := range res.Labels {
				jr.Labels.Labels = append(jr.Labels.Labels, jsonLabel(l))
			}
		}
		j.Reservations = append(j.Reservations, jr)
	}
	if d := r.Disk; !d.IsEmpty() {
		jd := &jsonDisk{}
		if s := d.Source; s != nil {
			js := &jsonSource{Type: s.Type.String(), ID: s.ID}
			switch s.Type {
			case volume.Path:
				js.Path = &jsonRoot{Root: s.Root}
			case volume.Mount:
				js.Mount = &jsonRoot{Root: s.Root}
			}
			jd.Source = js
		}
		if p := d.Persistence; p != nil {
			jd.Persistence = &jsonPersistence{ID: p.ID, Principal: p.Principal}
		}
		if v := d.Volume; v != nil {
			jd.Volume = &jsonVolume{ContainerPath: v.ContainerPath, Mode: v.Mode.String()}
		}
		j.Disk = jd
	}
	if r.Revocable {
		j.Revocable = &struct{}{}
	}
	if r.Shared {
		j.Shared = &struct{}{}
	}
	if r.ProviderID != "" {
		j.ProviderID = &jsonValue{Value: r.ProviderID}
	}
	if r.AllocationRole != "" {
		j.AllocationInfo = &jsonAllocation{Role: r.AllocationRole}
	}
	return j
}

// parseJSON reads a JSON array of Mesos Resource objects. Resources without
// role or reservations take defaultRole as a static reservation, as Mesos's
// Resources::fromJSON does.
func parseJSON(data []byte, defaultRole string) (Resources, error) {
	var list []jsonResource
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&list); err != nil {
		return Resources{}, fmt.Errorf("%w: JSON: %w", ErrSyntax, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Resources{}, fmt.Errorf("%w: JSON: data after the array at offset %d", ErrSyntax, dec.InputOffset())
	}
	var out Resources
	var types typeChecker
	for i := range list {
		r, err := fromJSON(&list[i], defaultRole)
		if err != nil {
			return Resources{}, fmt.Errorf("%w (JSON resource %d)", err, i)
		}
		if err := r.Validate(); err != nil {
			return Resources{}, fmt.Errorf("%w (JSON resource %d)", err, i)
		}
		if err := types.check(&r); err != nil {
			return Resources{}, fmt.Errorf("%w (JSON resource %d)", err, i)
		}
		if err := out.AddResource(r); err != nil {
			return Resources{}, fmt.Errorf("%w (JSON resource %d)", err, i)
		}
	}
	return out, nil
}

func fromJSON(j *jsonResource, defaultRole string) (Resource, error) {
	r := Resource{Name: j.Name, Revocable: j.Revocable != nil, Shared: j.Shared != nil}
	if err := validateName(j.Name); err != nil {
		return r, err
	}
	set := 0
	for _, has := range []bool{j.Scalar != nil, j.Ranges != nil, j.Set != nil} {
		if has {
			set++
		}
	}
	if set > 1 {
		return r, fmt.Errorf("%w: %s: more than one value", ErrMixedTypes, j.Name)
	}
	switch j.Type {
	case "SCALAR":
		if j.Scalar == nil {
			return r, fmt.Errorf("%w: %s: SCALAR without scalar value", ErrMixedTypes, j.Name)
		}
		s, err := parseScalarText(j.Scalar.Value.String())
		if err != nil {
			return r, fmt.Errorf("%w (%s)", err, j.Name)
		}
		r.Type, r.Scalar = ScalarType, s
	case "RANGES":
		if j.Ranges == nil {
			return r, fmt.Errorf("%w: %s: RANGES without ranges value", ErrMixedTypes, j.Name)
		}
		list := make(Ranges, 0, len(j.Ranges.Range))
		for _, x := range j.Ranges.Range {
			list = append(list, Range(x))
		}
		if err := validateRanges(list); err != nil {
			return r, fmt.Errorf("%w: %s: %w", ErrInvalidRanges, j.Name, err)
		}
		r.Type, r.Ranges = RangesType, coalesce(list)
	case "SET":
		if j.Set == nil {
			return r, fmt.Errorf("%w: %s: SET without set value", ErrMixedTypes, j.Name)
		}
		s, err := NewSet(j.Set.Item...)
		if err != nil {
			return r, fmt.Errorf("%w (%s)", err, j.Name)
		}
		r.Type, r.Set = SetType, s
	default:
		return r, fmt.Errorf("%w: %s: unknown type %q", ErrMixedTypes, j.Name, j.Type)
	}
	// Reservations: the refinement format, or the legacy role/reservation
	// fields for a single reservation, as Mesos upgrades them.
	switch {
	case len(j.Reservations) > 0:
		// Mesos's endpoints also fill in the legacy fields for a single
		// reservation; they must agree with the stack and are otherwise
		// ignored.
		if j.Role != "" && j.Role != j.Reservations[len(j.Reservations)-1].Role {
			return r, fmt.Errorf("%w: %s: role %q does not match the reservations", ErrInvalidReservation, j.Name, j.Role)
		}
		if j.Reservation != nil && len(j.Reservations) > 1 {
			return r, fmt.Errorf("%w: %s: legacy 'reservation' with a refined reservation stack", ErrInvalidReservation, j.Name)
		}
		for _, jr := range j.Reservations {
			res, err := reservationFromJSON(jr)
			if err != nil {
				return r, fmt.Errorf("%w: %s: %w", ErrInvalidReservation, j.Name, err)
			}
			r.Reservations = append(r.Reservations, res)
		}
	default:
		role := j.Role
		if role == "" {
			role = defaultRole
		}
		if role == "" || role == reservation.Any {
			if j.Reservation != nil {
				return r, fmt.Errorf("%w: %s: legacy 'reservation' on an unreserved resource", ErrInvalidReservation, j.Name)
			}
			break
		}
		if err := reservation.ValidateRole(role); err != nil {
			return r, fmt.Errorf("%w: %s: %w", ErrInvalidRole, j.Name, err)
		}
		res := reservation.Reservation{Type: reservation.Static, Role: role}
		if j.Reservation != nil {
			if j.Reservation.Type != "" || j.Reservation.Role != "" {
				return r, fmt.Errorf("%w: %s: legacy 'reservation' with a type or role", ErrInvalidReservation, j.Name)
			}
			res.Type = reservation.Dynamic
			res.Principal = j.Reservation.Principal
			res.Labels = labelsFromJSON(j.Reservation.Labels)
		}
		r.Reservations = reservation.Stack{res}
	}
	if jd := j.Disk; jd != nil {
		d := &volume.Disk{}
		if js := jd.Source; js != nil {
			t, ok := volume.ParseSourceType(js.Type)
			if !ok {
				return r, fmt.Errorf("%w: %s: unknown source type %q", ErrInvalidDisk, j.Name, js.Type)
			}
			s := &volume.Source{Type: t, ID: js.ID}
			if (js.Path != nil && t != volume.Path) || (js.Mount != nil && t != volume.Mount) {
				return r, fmt.Errorf("%w: %s: %s source with a 'path' or 'mount' of another type", ErrInvalidDisk, j.Name, t)
			}
			if js.Path != nil {
				s.Root = js.Path.Root
			}
			if js.Mount != nil {
				s.Root = js.Mount.Root
			}
			d.Source = s
		}
		if jp := jd.Persistence; jp != nil {
			d.Persistence = &volume.Persistence{ID: jp.ID, Principal: jp.Principal}
		}
		if jv := jd.Volume; jv != nil {
			v := &volume.Volume{ContainerPath: jv.ContainerPath}
			switch jv.Mode {
			case "RW":
				v.Mode = volume.RW
			case "RO":
				v.Mode = volume.RO
			default:
				return r, fmt.Errorf("%w: %s: unknown volume mode %q", ErrInvalidDisk, j.Name, jv.Mode)
			}
			d.Volume = v
		}
		if !d.IsEmpty() {
			r.Disk = d
		}
	}
	if j.ProviderID != nil {
		r.ProviderID = j.ProviderID.Value
	}
	if j.AllocationInfo != nil {
		if j.AllocationInfo.Role == "" {
			return r, fmt.Errorf("%w: %s: allocation_info without role", ErrInvalidRole, j.Name)
		}
		r.AllocationRole = j.AllocationInfo.Role
	}
	return r, nil
}

func reservationFromJSON(jr jsonReservation) (reservation.Reservation, error) {
	res := reservation.Reservation{Role: jr.Role, Principal: jr.Principal, Labels: labelsFromJSON(jr.Labels)}
	switch jr.Type {
	case "STATIC":
		res.Type = reservation.Static
	case "DYNAMIC":
		res.Type = reservation.Dynamic
	default:
		return res, fmt.Errorf("unknown reservation type %q", jr.Type)
	}
	return res, nil
}

func labelsFromJSON(jl *jsonLabels) reservation.Labels {
	if jl == nil {
		return nil
	}
	labels := reservation.Labels{}
	for _, l := range jl.Labels {
		labels = append(labels, reservation.Label(l))
	}
	return labels
}
