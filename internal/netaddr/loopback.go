// Package netaddr holds small address helpers shared by the mail clients.
package netaddr

import "net"

// IsLoopback reports whether addr ("host:port" or a bare host) names a
// loopback address: localhost, 127.0.0.0/8 or ::1.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
