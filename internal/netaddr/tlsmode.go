package netaddr

import "fmt"

// TLSMode validates a mail client's transport security setting for proto
// ("smtp", "imap") at addr: "tls", "starttls" or "plain" ("" means plain).
// Plain text is refused to anything but a loopback address unless
// allowPlain is set. It returns the normalised mode.
func TLSMode(proto, addr, mode string, allowPlain bool) (string, error) {
	switch mode {
	case "tls", "starttls":
		return mode, nil
	case "plain", "":
		if !allowPlain && !IsLoopback(addr) {
			return "", fmt.Errorf("%s %s: plain (unencrypted) connections are only allowed to a loopback address unless allow_plain is set", proto, addr)
		}
		return "plain", nil
	}
	return "", fmt.Errorf("%s %s: unknown tls mode %q (tls, starttls, plain)", proto, addr, mode)
}
