package ctf

import "testing"

func TestFlagFormatOf(t *testing.T) {
	static := func(contents ...string) []Flag {
		out := make([]Flag, len(contents))
		for i, c := range contents {
			out[i] = Flag{Kind: FlagStatic, Content: c}
		}
		return out
	}
	perPlayer := &InstanceSpec{Flag: FlagPerPlayer}
	tests := []struct {
		name  string
		c     Challenge
		event string
		want  string
	}{
		{"own format wins", Challenge{FlagFormat: " flag{[a-z]+} ", Flags: static("HTB{x}")}, "CTF{...}", "flag{[a-z]+}"},
		{"csaw", Challenge{Flags: static("csawctf{s3cr3t_th1ng}")}, "", "csawctf{...}"},
		{"htb", Challenge{Flags: static("HTB{a}", "HTB{b}")}, "flag{...}", "HTB{...}"},
		{"sekai", Challenge{Flags: static("SEKAI{x_y_z}")}, "", "SEKAI{...}"},
		{"words differ: event", Challenge{Flags: static("HTB{a}", "CTF{b}")}, "CTF{...}", "CTF{...}"},
		{"case differs: event", Challenge{Flags: static("htb{a}", "HTB{b}")}, "", ""},
		{"no brace: event", Challenge{Flags: static("s3cr3t")}, "flag{...}", "flag{...}"},
		{"no closing brace", Challenge{Flags: static("flag{abc")}, "", ""},
		{"nothing before brace", Challenge{Flags: static("{abc}")}, "", ""},
		{"spaces before brace tell nothing", Challenge{Flags: static("the key {abc}")}, "", ""},
		{"regex only: event", Challenge{Flags: []Flag{{Kind: FlagRegex, Content: `flag\{\d+\}`}}}, "flag{digits}", "flag{digits}"},
		{"regex ignored beside static", Challenge{Flags: []Flag{{Kind: FlagRegex, Content: `.*`}, {Kind: FlagStatic, Content: "gctf{a}"}}}, "", "gctf{...}"},
		{"one static not wrapped", Challenge{Flags: static("gctf{a}", "plain")}, "", ""},
		{"none at all", Challenge{}, "", ""},
		{"event trimmed", Challenge{}, "  flag{...} ", "flag{...}"},
		{"per-player word", Challenge{Instance: perPlayer, Flags: static("HTB{placeholder}")}, "", "HTB{...}"},
		{"per-player default", Challenge{Instance: perPlayer, Flags: static("placeholder")}, "CTF{...}", "flag{...}"},
		{"per-player own format wins", Challenge{Instance: perPlayer, FlagFormat: "X{...}"}, "", "X{...}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FlagFormatOf(tt.c, tt.event); got != tt.want {
				t.Errorf("FlagFormatOf = %q, want %q", got, tt.want)
			}
		})
	}
}
