package ctf

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// InstanceProtocol is how a player reaches an instance, which decides its
// connection line.
type InstanceProtocol string

// The protocols.
const (
	ProtocolTCP  InstanceProtocol = "tcp"  // nc HOST PORT
	ProtocolHTTP InstanceProtocol = "http" // http://HOST:PORT/
)

// InstanceFlag is where an instance's flag comes from.
type InstanceFlag string

// The flag sources.
const (
	// FlagPerPlayer: each player's own flag, derived from the server's
	// secret, the player and the challenge, given to their container.
	FlagPerPlayer InstanceFlag = "per-player"
	// FlagFromChallenge: the challenge's own flags, the same for everyone.
	FlagFromChallenge InstanceFlag = "static"
)

// InstanceSpec is how a challenge's instances run: the image and the port
// it serves, where its flag comes from, how long it lives and what it may
// use. docs/product.md#instances.
type InstanceSpec struct {
	Image    string            `json:"image"`
	Port     int               `json:"port"` // the container's port: the contract's dockerPort
	Protocol InstanceProtocol  `json:"protocol"`
	Flag     InstanceFlag      `json:"flag"`
	FlagEnv  string            `json:"flagEnv"` // the environment variable that carries the flag
	Env      map[string]string `json:"env,omitempty"`
	// Lifetime is how long an instance runs before it stops by itself;
	// a player may extend it, up to MaxLifetime from its start.
	Lifetime    time.Duration `json:"lifetime"`
	MaxLifetime time.Duration `json:"maxLifetime"`
	Memory      int64         `json:"memory"` // bytes
	CPUs        float64       `json:"cpus"`
	Pids        int64         `json:"pids"`
	// Shared: one instance for everyone, started with the event and
	// restarted if it dies, instead of one per player.
	Shared bool `json:"shared,omitempty"`
}

// The defaults of what an instance spec leaves out.
const (
	DefaultInstanceLifetime    = 30 * time.Minute
	DefaultInstanceMaxLifetime = 2 * time.Hour
	DefaultInstanceMemory      = 256 << 20
	DefaultInstanceCPUs        = 0.5
	DefaultInstancePids        = 128
	DefaultInstanceFlagEnv     = "FLAG"
)

// WithDefaults returns s with what it leaves out set to the defaults.
func (s InstanceSpec) WithDefaults() InstanceSpec {
	if s.Protocol == "" {
		s.Protocol = ProtocolTCP
	}
	if s.Flag == "" {
		s.Flag = FlagPerPlayer
	}
	if s.FlagEnv == "" {
		s.FlagEnv = DefaultInstanceFlagEnv
	}
	if s.Lifetime == 0 {
		s.Lifetime = DefaultInstanceLifetime
	}
	if s.MaxLifetime == 0 {
		s.MaxLifetime = max(DefaultInstanceMaxLifetime, s.Lifetime)
	}
	if s.Memory == 0 {
		s.Memory = DefaultInstanceMemory
	}
	if s.CPUs == 0 {
		s.CPUs = DefaultInstanceCPUs
	}
	if s.Pids == 0 {
		s.Pids = DefaultInstancePids
	}
	return s
}

// The bounds of an instance spec: enough for any challenge, not enough for
// one challenge to take a host.
const (
	MinInstanceLifetime = 10 * time.Second
	MaxInstanceLifetime = 24 * time.Hour
	MinInstanceMemory   = 6 << 20
	MaxInstanceMemory   = 16 << 30
	MaxInstanceCPUs     = 16
	MinInstancePids     = 8
	MaxInstancePids     = 32768
	MaxInstanceEnv      = 64
)

var (
	// An image reference: [registry/]name[:tag][@digest], no spaces.
	imageRef = regexp.MustCompile(`^[a-z0-9][a-z0-9._/:@-]{0,254}$`)
	envName  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)
)

// ValidateInstance checks an instance spec with its defaults applied; the
// field names it reports are under "instance.".
func ValidateInstance(s InstanceSpec) error {
	switch {
	case !imageRef.MatchString(s.Image):
		return FieldErrorf("instance.image", "must be an image reference such as flagship/echo:1 (lowercase, no spaces)")
	case s.Port < 1 || s.Port > 65535:
		return FieldErrorf("instance.port", "must be a port number from 1 to 65535")
	case s.Protocol != ProtocolTCP && s.Protocol != ProtocolHTTP:
		return FieldErrorf("instance.protocol", "must be tcp or http, not %q", s.Protocol)
	case s.Flag != FlagPerPlayer && s.Flag != FlagFromChallenge:
		return FieldErrorf("instance.flag", "must be per-player or static, not %q", s.Flag)
	case !envName.MatchString(s.FlagEnv):
		return FieldErrorf("instance.flagEnv", "must be an environment variable name (letters, digits, _)")
	case len(s.Env) > MaxInstanceEnv:
		return FieldErrorf("instance.env", "must have at most %d variables", MaxInstanceEnv)
	case s.Lifetime < MinInstanceLifetime || s.Lifetime > MaxInstanceLifetime:
		return FieldErrorf("instance.lifetime", "must be from %s to %s", FormatDuration(MinInstanceLifetime), FormatDuration(MaxInstanceLifetime))
	case s.MaxLifetime < s.Lifetime || s.MaxLifetime > MaxInstanceLifetime:
		return FieldErrorf("instance.maxLifetime", "must be from the lifetime (%s) to %s", FormatDuration(s.Lifetime), FormatDuration(MaxInstanceLifetime))
	case s.Memory < MinInstanceMemory || s.Memory > MaxInstanceMemory:
		return FieldErrorf("instance.memory", "must be from %s to %s", FormatBytes(MinInstanceMemory), FormatBytes(MaxInstanceMemory))
	case !(s.CPUs > 0 && s.CPUs <= MaxInstanceCPUs):
		return FieldErrorf("instance.cpus", "must be more than 0 and at most %d", MaxInstanceCPUs)
	case s.Pids < MinInstancePids || s.Pids > MaxInstancePids:
		return FieldErrorf("instance.pids", "must be from %d to %d", MinInstancePids, MaxInstancePids)
	case s.Shared && s.Flag == FlagPerPlayer:
		return FieldErrorf("instance.flag", "must be static for a shared instance: everyone reaches the same one")
	}
	for k, v := range s.Env {
		if !envName.MatchString(k) {
			return FieldErrorf("instance.env", "names a variable %q that is not an environment variable name", k)
		}
		if k == s.FlagEnv {
			return FieldErrorf("instance.env", "sets %s, the flag's variable", k)
		}
		if len(v) > 4096 || strings.ContainsRune(v, 0) {
			return FieldErrorf("instance.env", "%s must be at most 4,096 bytes of text", k)
		}
	}
	return nil
}

// Connection is the line a player reaches an instance with, at host and
// port.
func (s InstanceSpec) Connection(host string, port int) string {
	if s.Protocol == ProtocolHTTP {
		return fmt.Sprintf("http://%s:%d/", host, port)
	}
	return fmt.Sprintf("nc %s %d", host, port)
}

// FormatDuration writes d as a dataset does: whole hours, minutes and
// seconds ("30m", "1h30m", "45s"), never "30m0s".
func FormatDuration(d time.Duration) string {
	if d <= 0 || d%time.Second != 0 {
		return d.String()
	}
	var b strings.Builder
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}} {
		if n := d / u.d; n > 0 {
			b.WriteString(strconv.FormatInt(int64(n), 10) + u.name)
			d -= n * u.d
		}
	}
	return b.String()
}

// The binary units of a size, largest first.
var byteUnits = []struct {
	name string
	n    int64
}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}

// byteSuffixes are the suffixes of a size, longest first; "MB", "GB" and
// "KB" mean the binary units, as Docker reads them.
var byteSuffixes = []struct {
	suffix string
	n      int64
}{
	{"GIB", 1 << 30}, {"MIB", 1 << 20}, {"KIB", 1 << 10},
	{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10},
	{"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1},
}

// ParseBytes reads a size such as "256MiB", "1GiB", "512KiB" or a number of
// bytes.
func ParseBytes(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range byteSuffixes {
		if strings.HasSuffix(strings.ToUpper(s), u.suffix) {
			mult, s = u.n, strings.TrimSpace(s[:len(s)-len(u.suffix)])
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, false
	}
	return n * mult, true
}

// FormatBytes writes n in the largest binary unit that divides it.
func FormatBytes(n int64) string {
	for _, u := range byteUnits {
		if n > 0 && n%u.n == 0 {
			return strconv.FormatInt(n/u.n, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10)
}

// flagWord is the word before the brace of a flag such as CTF{...}.
var flagWord = regexp.MustCompile(`^([A-Za-z0-9_]{1,32})\{`)

// PlayerFlag is a player's own flag of a challenge with per-player flags:
// <word>{<slug>_<16 hex digits of HMAC-SHA256(secret, user id, slug)>},
// where word is that of the challenge's first static flag (CTF{…} gives
// CTF) or "flag". The same for a player across restarts of their instance,
// and no player can derive another's.
func PlayerFlag(secret []byte, userID string, c *Challenge) string {
	word := playerFlagWord(c)
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(userID))
	mac.Write([]byte{0})
	mac.Write([]byte(c.Slug))
	return word + "{" + c.Slug + "_" + hex.EncodeToString(mac.Sum(nil))[:16] + "}"
}

// playerFlagWord is the word of c's per-player flags: that of its first
// static flag of the shape word{…}, else "flag".
func playerFlagWord(c *Challenge) string {
	for _, f := range c.Flags {
		if m := flagWord.FindStringSubmatch(f.Content); f.Kind == FlagStatic && m != nil {
			return m[1]
		}
	}
	return "flag"
}

// PerPlayer reports whether c's flags are each player's own.
func (c *Challenge) PerPlayer() bool {
	return c.Instance != nil && c.Instance.Flag == FlagPerPlayer
}
