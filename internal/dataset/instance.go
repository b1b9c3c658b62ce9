package dataset

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"go.yaml.in/yaml/v3"
)

// Instance is a challenge's instance spec as a dataset writes it: sizes and
// durations as text ("256MiB", "30m"), every key but image and port
// optional (docs/product.md#instances).
type Instance struct {
	Image       string            `json:"image" yaml:"image"`
	Port        int               `json:"port" yaml:"port"`
	Protocol    string            `json:"protocol,omitempty" yaml:"protocol,omitempty"` // tcp | http
	Flag        string            `json:"flag,omitempty" yaml:"flag,omitempty"`         // per-player | static
	FlagEnv     string            `json:"flagEnv,omitempty" yaml:"flagEnv,omitempty"`
	Env         map[string]string `json:"env,omitempty" yaml:"env,omitempty"`
	Lifetime    string            `json:"lifetime,omitempty" yaml:"lifetime,omitempty"`
	MaxLifetime string            `json:"maxLifetime,omitempty" yaml:"maxLifetime,omitempty"`
	Memory      string            `json:"memory,omitempty" yaml:"memory,omitempty"`
	CPUs        float64           `json:"cpus,omitempty" yaml:"cpus,omitempty"`
	Pids        int               `json:"pids,omitempty" yaml:"pids,omitempty"`
	Shared      bool              `json:"shared,omitempty" yaml:"shared,omitempty"`
}

// Spec is the instance spec i gives, with the defaults of what it leaves
// out; the error names the field at fault (under "instance.").
func (i Instance) Spec() (ctf.InstanceSpec, error) {
	s := ctf.InstanceSpec{Image: strings.TrimSpace(i.Image), Port: i.Port, Protocol: ctf.InstanceProtocol(i.Protocol),
		Flag: ctf.InstanceFlag(i.Flag), FlagEnv: i.FlagEnv, Env: i.Env, CPUs: i.CPUs, Pids: int64(i.Pids), Shared: i.Shared}
	for _, d := range []struct {
		text  string
		into  *time.Duration
		field string
	}{{i.Lifetime, &s.Lifetime, "instance.lifetime"}, {i.MaxLifetime, &s.MaxLifetime, "instance.maxLifetime"}} {
		if d.text == "" {
			continue
		}
		v, err := time.ParseDuration(strings.TrimSpace(d.text))
		if err != nil {
			return s, ctf.FieldErrorf(d.field, "must be a duration such as 30m or 2h, not %q", d.text)
		}
		*d.into = v
	}
	if i.Memory != "" {
		v, ok := ctf.ParseBytes(i.Memory)
		if !ok {
			return s, ctf.FieldErrorf("instance.memory", "must be a size such as 256MiB or 1GiB, not %q", i.Memory)
		}
		s.Memory = v
	}
	s = s.WithDefaults()
	return s, ctf.ValidateInstance(s)
}

// InstanceOf is s as a dataset writes it: every value given, so a dump
// reads back the same whatever the defaults become.
func InstanceOf(s *ctf.InstanceSpec) *Instance {
	if s == nil {
		return nil
	}
	return &Instance{Image: s.Image, Port: s.Port, Protocol: string(s.Protocol), Flag: string(s.Flag), FlagEnv: s.FlagEnv,
		Env: s.Env, Lifetime: ctf.FormatDuration(s.Lifetime), MaxLifetime: ctf.FormatDuration(s.MaxLifetime),
		Memory: ctf.FormatBytes(s.Memory), CPUs: s.CPUs, Pids: int(s.Pids), Shared: s.Shared}
}

// instanceFields read a challenge's instance mapping.
var instanceFields = newMapping(rejectUnknown, nil,
	asTrimmed("image", func(i *Instance) *string { return &i.Image }),
	asInt("port", func(i *Instance) *int { return &i.Port }),
	asLower("protocol", func(i *Instance) *string { return &i.Protocol }),
	asLower("flag", func(i *Instance) *string { return &i.Flag }),
	asTrimmed("flagEnv", func(i *Instance) *string { return &i.FlagEnv }),
	field[Instance]{"env", func(d *decoder, i *Instance, v *yaml.Node, path string) {
		keys, vals := d.pairs(v, path)
		if len(keys) > 0 {
			i.Env = make(map[string]string, len(keys))
		}
		for j, k := range keys {
			i.Env[k] = d.str(vals[j], path+"."+k)
		}
	}},
	asTrimmed("lifetime", func(i *Instance) *string { return &i.Lifetime }),
	asTrimmed("maxLifetime", func(i *Instance) *string { return &i.MaxLifetime }),
	asTrimmed("memory", func(i *Instance) *string { return &i.Memory }),
	field[Instance]{"cpus", func(d *decoder, i *Instance, v *yaml.Node, path string) {
		v = deref(v)
		f, err := strconv.ParseFloat(v.Value, 64)
		if v.Kind != yaml.ScalarNode || (v.Tag != "!!float" && v.Tag != "!!int") || err != nil {
			d.fail(path, "must be a number, not %s", kindName(v))
			return
		}
		i.CPUs = f
	}},
	asInt("pids", func(i *Instance) *int { return &i.Pids }),
	asBool("shared", func(i *Instance) *bool { return &i.Shared }),
)

// ParseInstance reads an instance spec written as a dataset writes one (a
// YAML or JSON mapping: the admin editor's field); blank text is no spec.
// An error is an Invalid ctf error on the field "instance".
func ParseInstance(text string) (*ctf.InstanceSpec, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	n, err := parse([]byte(text), "instance.yaml")
	if err != nil {
		return nil, ctf.FieldErrorf("instance", "is not a YAML mapping: %v", err)
	}
	d := newDecoder("instance", false)
	var in Instance
	instanceFields.decode(d, n, "instance", &in)
	if len(d.errs) > 0 {
		var e *Error
		if errors.As(d.errs[0], &e) && e.Field != "" {
			return nil, ctf.FieldErrorf(e.Field, "%s", e.Msg)
		}
		return nil, ctf.FieldErrorf("instance", "%v", d.errs[0])
	}
	spec, err := in.Spec()
	if err != nil {
		return nil, err
	}
	return &spec, nil
}

// FormatInstance writes s as ParseInstance reads it: every value given.
func FormatInstance(s *ctf.InstanceSpec) string {
	if s == nil {
		return ""
	}
	b, err := yaml.Marshal(InstanceOf(s))
	if err != nil {
		return ""
	}
	return string(b)
}

// perPlayer reports whether c's flags are each player's own: it needs no
// flag of its own then.
func (c *Challenge) perPlayer() bool {
	return c.Instance != nil && (c.Instance.Flag == "" || c.Instance.Flag == string(ctf.FlagPerPlayer))
}

// Sharing is a suspected sharing: User submitted the per-player flag of a
// challenge given to Owner's instance.
type Sharing struct {
	ID        string     `json:"id,omitempty" yaml:"id,omitempty"`
	User      string     `json:"user" yaml:"user"`   // who submitted it
	Owner     string     `json:"owner" yaml:"owner"` // whose flag it is
	Challenge string     `json:"challenge" yaml:"challenge"`
	At        *time.Time `json:"at,omitempty" yaml:"at,omitempty"`
	Door      ctf.Door   `json:"door,omitempty" yaml:"door,omitempty"`
	Key       string     `json:"key,omitempty" yaml:"key,omitempty"`

	Source Source `json:"-" yaml:"-"` // where the entry was read (not encoded)
}
