package dataset

import (
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

func TestInstanceDecodes(t *testing.T) {
	ds, err := Decode([]byte("challenges:\n"+chal("pwnme", `instance:
      image: flagship-test/echo:1
      port: 1337
      protocol: HTTP
      flag: per-player
      flagEnv: SECRET
      env: {MODE: hard, LEVEL: 3}
      lifetime: 30m
      maxLifetime: 1h30m
      memory: 128MiB
      cpus: 0.25
      pids: 64`)), "event.yaml")
	if err != nil {
		t.Fatal(err)
	}
	in := ds.Challenges[0].Instance
	if in == nil {
		t.Fatal("no instance read")
	}
	spec, err := in.Spec()
	if err != nil {
		t.Fatal(err)
	}
	want := ctf.InstanceSpec{Image: "flagship-test/echo:1", Port: 1337, Protocol: ctf.ProtocolHTTP, Flag: ctf.FlagPerPlayer,
		FlagEnv: "SECRET", Env: map[string]string{"MODE": "hard", "LEVEL": "3"}, Lifetime: 30 * time.Minute,
		MaxLifetime: 90 * time.Minute, Memory: 128 << 20, CPUs: 0.25, Pids: 64}
	if !cmp.Equal(spec, want) {
		t.Errorf("spec: %s", cmp.Diff(want, spec))
	}
	// A dump writes every value, and reads back the same.
	out, err := yaml.Marshal(InstanceOf(&spec))
	if err != nil {
		t.Fatal(err)
	}
	var back Instance
	instanceFields.decode(&decoder{}, mustNode(t, out), "instance", &back)
	if again, err := back.Spec(); err != nil || !cmp.Equal(again, spec) {
		t.Errorf("dumped as\n%s\nread back as %+v (%v)", out, again, err)
	}
}

func TestInstanceDefaults(t *testing.T) {
	ds, err := Decode([]byte("challenges:\n"+chal("pwnme", "instance: {image: 'flagship-test/echo:1', port: 1337}")), "event.yaml")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := ds.Challenges[0].Instance.Spec()
	if err != nil {
		t.Fatal(err)
	}
	if want := (ctf.InstanceSpec{Image: "flagship-test/echo:1", Port: 1337}).WithDefaults(); !cmp.Equal(spec, want) {
		t.Errorf("spec: %s", cmp.Diff(want, spec))
	}
}

func TestInstanceErrors(t *testing.T) {
	const entry = `challenges[0] (slug "x")`
	ok := "image: 'flagship-test/echo:1', port: 1337"
	runErrorCases(t, []errorCase{
		{"an unknown key", []fixture{{"event.yaml", "challenges:\n" + chal("x", "instance: {"+ok+", lifetme: 5m}")}},
			"event.yaml", entry, "instance.lifetme"},
		{"no image", []fixture{{"event.yaml", "challenges:\n" + chal("x", "instance: {port: 1337}")}},
			"event.yaml", entry, "instance.image"},
		{"no port", []fixture{{"event.yaml", "challenges:\n" + chal("x", "instance: {image: 'a:1'}")}},
			"event.yaml", entry, "instance.port"},
		{"a port as text", []fixture{{"event.yaml", "challenges:\n" + chal("x", "instance: {image: 'a:1', port: '1337'}")}},
			"event.yaml", entry, "instance.port"},
		{"a bad lifetime", []fixture{{"event.yaml", "challenges:\n" + chal("x", "instance: {"+ok+", lifetime: forever}")}},
			"event.yaml", entry, "instance.lifetime"},
		{"a bad size", []fixture{{"event.yaml", "challenges:\n" + chal("x", "instance: {"+ok+", memory: lots}")}},
			"event.yaml", entry, "instance.memory"},
		{"cpus as text", []fixture{{"event.yaml", "challenges:\n" + chal("x", "instance: {"+ok+", cpus: half}")}},
			"event.yaml", entry, "instance.cpus"},
		{"a protocol", []fixture{{"event.yaml", "challenges:\n" + chal("x", "instance: {"+ok+", protocol: udp}")}},
			"event.yaml", entry, "instance.protocol"},
		{"env as a list", []fixture{{"event.yaml", "challenges:\n" + chal("x", "instance: {"+ok+", env: [A]}")}},
			"event.yaml", entry, "instance.env"},
		{"another docker port", []fixture{{"event.yaml", "challenges:\n" + chal("x", "instance: {"+ok+"}", "dockerPort: 80")}},
			"event.yaml", entry, "dockerPort"},
		{"a shared per-player flag", []fixture{{"event.yaml", "challenges:\n" + chal("x", "instance: {"+ok+", shared: true}")}},
			"event.yaml", entry, "instance.flag"},
	})
}

func mustNode(t *testing.T, data []byte) *yaml.Node {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err != nil {
		t.Fatal(err)
	}
	return n.Content[0]
}

func TestParseInstance(t *testing.T) {
	spec, err := ParseInstance("image: flagship-test/echo:1\nport: 1337\nmemory: 64MiB\n")
	if err != nil || spec == nil || spec.Memory != 64<<20 || spec.Lifetime != ctf.DefaultInstanceLifetime {
		t.Fatalf("ParseInstance = %+v, %v", spec, err)
	}
	back, err := ParseInstance(FormatInstance(spec))
	if err != nil || !cmp.Equal(back, spec) {
		t.Errorf("FormatInstance does not read back: %s (%v)", cmp.Diff(spec, back), err)
	}
	if spec, err := ParseInstance("  \n"); spec != nil || err != nil {
		t.Errorf("blank: %+v, %v", spec, err)
	}
	for text, field := range map[string]string{
		"image: a:1\nport: 1\nlifetme: 5m":  "instance.lifetme",
		"image: a:1\nport: 1\nmemory: lots": "instance.memory",
		"[1, 2]":                            "instance",
		"image: a:1\nport: [":               "instance",
	} {
		_, err := ParseInstance(text)
		if e, ok := err.(*ctf.Error); !ok || e.Field != field {
			t.Errorf("%q: %v, want an error on %s", text, err, field)
		}
	}
}
