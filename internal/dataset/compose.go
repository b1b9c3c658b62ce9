package dataset

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/flagshipctf/flagship/internal/ctf"
	"go.yaml.in/yaml/v3"
)

// An NYU CTF Bench task that runs a service has a docker-compose.yml whose
// service names a prebuilt image (llmctf/<canonical name>) reachable on
// the CTF network under the task's box. Flagship runs such a task per
// player from that image: the compose file's service becomes the task's
// instance spec. A compose file that builds its image, or runs several
// services (an instance is one container), gives none: the load report
// says why.

// composeFiles are the names Docker Compose looks for, NYU's first.
var composeFiles = []string{"docker-compose.yml", "docker-compose.yaml", "compose.yml", "compose.yaml"}

// maxCompose bounds a compose file read (NYU's are a few hundred bytes).
const maxCompose = 1 << 20

// composeService is what Flagship reads of a compose service.
type composeService struct {
	Image string    `yaml:"image"`
	Build yaml.Node `yaml:"build"`
}

// composeInstance reads the compose file of the task in dir, if any, and
// returns the instance spec of its service (serving port over protocol),
// or nil and, when the file is there but gives none, the note saying why.
// The flag is the task's own: NYU's images hold it.
func composeInstance(dir string, port int, protocol ctf.InstanceProtocol) (*Instance, string) {
	name, data, err := readComposeFile(dir)
	switch {
	case name == "":
		return nil, ""
	case err != nil:
		return nil, fmt.Sprintf("%s: %v: no instance spec", name, err)
	}
	var doc struct {
		Services map[string]composeService `yaml:"services"`
	}
	root, err := parse(data, name)
	if err == nil && root != nil {
		err = root.Decode(&doc)
	}
	if err != nil {
		return nil, fmt.Sprintf("%s: not a compose file (%v): no instance spec", name, err)
	}
	names := make([]string, 0, len(doc.Services))
	for n := range doc.Services {
		names = append(names, n)
	}
	slices.Sort(names)
	switch len(names) {
	case 0:
		return nil, fmt.Sprintf("%s: no services: no instance spec", name)
	case 1:
	default:
		return nil, fmt.Sprintf("%s runs %d services (%s); an instance is one container: no instance spec",
			name, len(names), strings.Join(names, ", "))
	}
	svc := doc.Services[names[0]]
	image := strings.TrimSpace(svc.Image)
	builds := svc.Build.Kind != 0 && !isNull(&svc.Build)
	switch {
	case image == "" && builds:
		return nil, "compose builds its image: build and name it, then set instance"
	case image == "":
		return nil, fmt.Sprintf("%s: service %s names no image: no instance spec", name, names[0])
	case port == 0:
		return nil, fmt.Sprintf("%s names image %s but challenge.json gives no internal_port: no instance spec", name, image)
	}
	in := &Instance{Image: image, Port: port, Protocol: string(protocol), Flag: string(ctf.FlagFromChallenge)}
	if _, err := in.Spec(); err != nil {
		return nil, fmt.Sprintf("%s: %v: no instance spec", name, err)
	}
	if builds {
		// The image is made here, under that name, not pulled.
		return in, fmt.Sprintf("compose builds image %s: run docker compose build in the task's directory before instances start", image)
	}
	return in, ""
}

// truthy reports whether n is a value Python takes as true, as NYU's
// runner reads challenge.json: true, a non-zero number, a non-empty
// string or collection.
func truthy(n *yaml.Node) bool {
	n = deref(n)
	if isNull(n) {
		return false
	}
	if n.Kind != yaml.ScalarNode {
		return len(n.Content) > 0
	}
	switch n.Tag {
	case "!!bool":
		return strings.EqualFold(n.Value, "true")
	case "!!int", "!!float":
		f, err := strconv.ParseFloat(n.Value, 64)
		return err != nil || f != 0
	}
	return n.Value != ""
}

// readComposeFile reads the first compose file of dir; name is "" when
// there is none. The file is read without following a symlink.
func readComposeFile(dir string) (name string, data []byte, err error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return "", nil, nil
	}
	defer r.Close()
	for _, n := range composeFiles {
		if _, err := r.Lstat(n); err != nil {
			continue
		}
		f, _, err := openNoFollow(r, n)
		if err != nil {
			return n, nil, rootErr(err)
		}
		defer f.Close()
		data, err = io.ReadAll(io.LimitReader(f, maxCompose+1))
		if err == nil && len(data) > maxCompose {
			err = fmt.Errorf("larger than %d KiB", maxCompose>>10)
		}
		return n, data, err
	}
	return "", nil, nil
}
