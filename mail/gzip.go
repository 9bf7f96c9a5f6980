package mail

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
)

// gzipMagic begins every gzip stream.
var gzipMagic = []byte{0x1f, 0x8b}

// gunzipped returns r decompressed when it is a gzip stream (what lore and
// b4 give: t.mbox.gz), else r as it is. The decompressed size is bounded
// by the readers downstream (MaxMessageSize per message).
func gunzipped(r io.Reader) (io.Reader, error) {
	br := bufio.NewReader(r)
	head, err := br.Peek(len(gzipMagic))
	if err != nil || !bytes.Equal(head, gzipMagic) {
		return br, nil // too short to be gzip: read as it is
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	return zr, nil
}
