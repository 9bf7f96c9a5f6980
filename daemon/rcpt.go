package daemon

import (
	"bytes"
	"fmt"
	"net/mail"
	"strings"
)

// restrictRecipients rewrites the To and Cc headers of a composed reply
// to the addresses allowed holds (lower-cased bare addresses) and returns
// the new message and the addresses it dropped. When every To address is
// dropped, the first Cc address kept becomes the To (as reply makes it:
// never a reply with Cc only). The body and every other header are kept
// byte for byte.
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
	type field struct {
		text, name string
		kept       []string // To or Cc: the allowed addresses
	}
	var fs []field
	var dropped []string
	to := false
	for _, f := range fields {
		name, value, ok := strings.Cut(f, ":")
		if !ok || !strings.EqualFold(name, "To") && !strings.EqualFold(name, "Cc") {
			fs = append(fs, field{text: f})
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
		to = to || strings.EqualFold(name, "To") && len(kept) > 0
		fs = append(fs, field{name: name, kept: kept})
	}
	var out strings.Builder
	for _, f := range fs {
		if f.name == "" {
			out.WriteString(f.text + nl)
			continue
		}
		kept := f.kept
		if !to && len(kept) > 0 {
			// Every To was dropped: the first Cc left becomes the To,
			// a reply is never sent with Cc only.
			out.WriteString("To: " + kept[0] + nl)
			kept, to = kept[1:], true
		}
		if len(kept) > 0 {
			out.WriteString(f.name + ": " + strings.Join(kept, ","+nl+" ") + nl)
		}
	}
	res := append([]byte(strings.TrimSuffix(out.String(), nl)), body...)
	return res, dropped, nil
}
