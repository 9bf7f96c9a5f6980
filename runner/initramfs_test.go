package runner

import (
	"bytes"
	"io"
	"testing"

	"github.com/cavaliergopher/cpio"
)

func TestWriteInitramfs(t *testing.T) {
	img, err := writeInitramfs([]initramfsFile{
		{Name: "init", Mode: 0o755, Data: []byte("#!init")},
		{Name: "autosel/a/b/test", Mode: 0o755, Data: []byte("odd-sized data")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(img, []byte("070701")) {
		t.Fatalf("not newc: %q", img[:6])
	}
	r := cpio.NewReader(bytes.NewReader(img))
	got := map[string]string{}
	dirs := map[string]bool{}
	for {
		h, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Mode.IsDir() {
			dirs[h.Name] = true
			continue
		}
		b, _ := io.ReadAll(r)
		got[h.Name] = string(b)
		if h.Mode.Perm() != 0o755 {
			t.Errorf("%s mode %v", h.Name, h.Mode)
		}
	}
	if got["init"] != "#!init" || got["autosel/a/b/test"] != "odd-sized data" {
		t.Fatalf("files %q", got)
	}
	for _, d := range []string{"dev", "proc", "sys", "tmp", "autosel", "autosel/a", "autosel/a/b"} {
		if !dirs[d] {
			t.Errorf("directory %s missing (have %v)", d, dirs)
		}
	}
}
