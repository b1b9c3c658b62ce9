package ctf

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestParseAndFormatBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
		out  string
	}{
		{"256MiB", 256 << 20, true, "256MiB"},
		{"256 MiB", 256 << 20, true, "256MiB"},
		{"1GiB", 1 << 30, true, "1GiB"},
		{"1g", 1 << 30, true, "1GiB"},
		{"512KB", 512 << 10, true, "512KiB"},
		{"1536MiB", 1536 << 20, true, "1536MiB"},
		{"1000", 1000, true, "1000"},
		{"1000B", 1000, true, "1000"},
		{"", 0, false, ""},
		{"MiB", 0, false, ""},
		{"-5MiB", 0, false, ""},
		{"1.5GiB", 0, false, ""},
		{"99999999999999999GiB", 0, false, ""},
	} {
		got, ok := ParseBytes(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
		if ok && FormatBytes(got) != tc.out {
			t.Errorf("FormatBytes(%d) = %q, want %q", got, FormatBytes(got), tc.out)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		30 * time.Minute: "30m", 2 * time.Hour: "2h", 90 * time.Minute: "1h30m", 45 * time.Second: "45s",
		time.Hour + time.Second: "1h1s", 1500 * time.Millisecond: "1.5s",
	} {
		if got := FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
		if back, err := time.ParseDuration(FormatDuration(d)); err != nil || back != d {
			t.Errorf("%q does not read back as %v", FormatDuration(d), d)
		}
	}
}

func TestValidateInstance(t *testing.T) {
	ok := InstanceSpec{Image: "flagship-test/echo:1", Port: 1337}.WithDefaults()
	if err := ValidateInstance(ok); err != nil {
		t.Fatalf("the defaults: %v", err)
	}
	if ok.Protocol != ProtocolTCP || ok.Flag != FlagPerPlayer || ok.FlagEnv != "FLAG" || ok.Lifetime != 30*time.Minute ||
		ok.MaxLifetime != 2*time.Hour || ok.Memory != 256<<20 || ok.CPUs != 0.5 || ok.Pids != 128 {
		t.Errorf("defaults = %+v", ok)
	}
	long := InstanceSpec{Image: "x", Port: 1, Lifetime: 3 * time.Hour}.WithDefaults()
	if long.MaxLifetime != 3*time.Hour {
		t.Errorf("a lifetime over the default maximum raises the maximum: %v", long.MaxLifetime)
	}
	for _, tc := range []struct {
		name  string
		edit  func(*InstanceSpec)
		field string
	}{
		{"no image", func(s *InstanceSpec) { s.Image = "" }, "instance.image"},
		{"an image with a space", func(s *InstanceSpec) { s.Image = "a b" }, "instance.image"},
		{"port 0", func(s *InstanceSpec) { s.Port = 0 }, "instance.port"},
		{"port 70000", func(s *InstanceSpec) { s.Port = 70000 }, "instance.port"},
		{"udp", func(s *InstanceSpec) { s.Protocol = "udp" }, "instance.protocol"},
		{"a flag source", func(s *InstanceSpec) { s.Flag = "mine" }, "instance.flag"},
		{"a flag variable", func(s *InstanceSpec) { s.FlagEnv = "1FLAG" }, "instance.flagEnv"},
		{"an env name", func(s *InstanceSpec) { s.Env = map[string]string{"A-B": "x"} }, "instance.env"},
		{"the flag in env", func(s *InstanceSpec) { s.Env = map[string]string{"FLAG": "x"} }, "instance.env"},
		{"a short lifetime", func(s *InstanceSpec) { s.Lifetime = time.Second }, "instance.lifetime"},
		{"a maximum under the lifetime", func(s *InstanceSpec) { s.MaxLifetime = time.Minute }, "instance.maxLifetime"},
		{"too little memory", func(s *InstanceSpec) { s.Memory = 1 << 20 }, "instance.memory"},
		{"no cpu", func(s *InstanceSpec) { s.CPUs = -1 }, "instance.cpus"},
		{"too many pids", func(s *InstanceSpec) { s.Pids = 1 << 20 }, "instance.pids"},
		{"a shared per-player flag", func(s *InstanceSpec) { s.Shared = true }, "instance.flag"},
	} {
		s := ok
		tc.edit(&s)
		err := ValidateInstance(s)
		if e, isErr := err.(*Error); !isErr || e.Field != tc.field || e.Code != Invalid {
			t.Errorf("%s: %v, want an Invalid error on %s", tc.name, err, tc.field)
		}
	}
}

func TestInstanceConnection(t *testing.T) {
	if got := (InstanceSpec{Protocol: ProtocolTCP}).Connection("ctf.example.org", 30001); got != "nc ctf.example.org 30001" {
		t.Errorf("tcp: %q", got)
	}
	if got := (InstanceSpec{Protocol: ProtocolHTTP}).Connection("ctf.example.org", 30001); got != "http://ctf.example.org:30001/" {
		t.Errorf("http: %q", got)
	}
}

func TestPlayerFlag(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	c := &Challenge{Slug: "pwn-me"}
	a, b := PlayerFlag(secret, "u1", c), PlayerFlag(secret, "u2", c)
	if a == b || a != PlayerFlag(secret, "u1", c) {
		t.Errorf("flags of two players %q, %q: each must be stable and their own", a, b)
	}
	if !regexp.MustCompile(`^flag\{pwn-me_[0-9a-f]{16}\}$`).MatchString(a) {
		t.Errorf("format: %q", a)
	}
	if PlayerFlag([]byte("another secret"), "u1", c) == a {
		t.Error("the flag does not depend on the secret")
	}
	if PlayerFlag(secret, "u1", &Challenge{Slug: "other"}) == a {
		t.Error("the flag does not depend on the challenge")
	}
	c.Flags = []Flag{{Kind: FlagRegex, Content: `x`}, {Kind: FlagStatic, Content: "CTF{example}"}}
	if got := PlayerFlag(secret, "u1", c); !strings.HasPrefix(got, "CTF{pwn-me_") {
		t.Errorf("with a CTF{…} flag: %q", got)
	}
}
