package reply

import "mime"

// mimeDecoder decodes RFC 2047 header words for tests.
type mimeDecoder struct{ d mime.WordDecoder }

func (m *mimeDecoder) decode(s string) (string, error) { return m.d.DecodeHeader(s) }
