package daemon

import (
	"bytes"
	"fmt"
	"net/mail"
	"strings"
)

// restrictRecipients rewrites the To and Cc headers of a composed reply
// to the addresses allowed holds (lower-cased bare addresses) and returns
// the new message and the addresses it dropped. The body and every other
// header are kept byte for byte.
func restrictRecipients(raw []byte, allowed map[string]bool) ([]byte, []string, error) {
	nl := "\n"
	if bytes.Contains(raw, []byte("\r\n")) {
		nl = "\r\n"
	}
	end := bytes.Index(raw, []byte(nl+nl))
	if end < 0 {
		return nil, nil, fmt.Errorf("reply has no header/body separator")
	}
	head, body := string(raw[:end]), raw[end:]
	// Unfold into fields: a line starting with space or tab continues one.
	var fields []string
	for _, l := range strings.Split(head, nl) {
		if n := len(fields); n > 0 && (strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t")) {
			fields[n-1] += nl + l
			continue
		}
		fields = append(fields, l)
	}
	var out strings.Builder
	var dropped []string
	for _, f := range fields {
		name, value, ok := strings.Cut(f, ":")
		if !ok || !strings.EqualFold(name, "To") && !strings.EqualFold(name, "Cc") {
			out.WriteString(f + nl)
			continue
		}
		list, err := mail.ParseAddressList(strings.ReplaceAll(value, nl, ""))
		if err != nil {
			return nil, nil, fmt.Errorf("reply %s header: %w", name, err)
		}
		var kept []string
		for _, a := range list {
			if allowed[strings.ToLower(a.Address)] {
				kept = append(kept, a.String())
			} else {
				dropped = append(dropped, a.Address)
			}
		}
		if len(kept) > 0 {
			out.WriteString(name + ": " + strings.Join(kept, ","+nl+" ") + nl)
		}
	}
	res := append([]byte(strings.TrimSuffix(out.String(), nl)), body...)
	return res, dropped, nil
}
