package lava

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// A minimal ZeroMQ SUB socket (ZMTP 3.0, NULL security) over one TCP
// connection: what it takes to read LAVA's event stream (lava-publisher's
// PUB socket, EVENT_SOCKET) without a libzmq binding.

// zmtpGreeting is our greeting: signature, version 3.0, mechanism NULL,
// as-server 0, filler.
func zmtpGreeting() []byte {
	g := make([]byte, 64)
	g[0], g[9] = 0xff, 0x7f
	g[10], g[11] = 3, 0
	copy(g[12:32], "NULL")
	return g
}

// Frame flags.
const (
	zmtpMore    = 0x01
	zmtpLong    = 0x02
	zmtpCommand = 0x04
)

// zmtpFrame encodes one frame.
func zmtpFrame(flags byte, body []byte) []byte {
	var b bytes.Buffer
	if len(body) > 255 {
		b.WriteByte(flags | zmtpLong)
		binary.Write(&b, binary.BigEndian, uint64(len(body)))
	} else {
		b.WriteByte(flags)
		b.WriteByte(byte(len(body)))
	}
	b.Write(body)
	return b.Bytes()
}

// zmtpCommandBody is a command: name and data.
func zmtpCommandBody(name string, data []byte) []byte {
	return append(append([]byte{byte(len(name))}, name...), data...)
}

// zmtpReady is the READY command's data of a socket type.
func zmtpReady(socketType string) []byte {
	var b bytes.Buffer
	b.WriteByte(byte(len("Socket-Type")))
	b.WriteString("Socket-Type")
	binary.Write(&b, binary.BigEndian, uint32(len(socketType)))
	b.WriteString(socketType)
	return b.Bytes()
}

// readFrame reads one frame.
func readFrame(r *bufio.Reader) (flags byte, body []byte, err error) {
	flags, err = r.ReadByte()
	if err != nil {
		return 0, nil, err
	}
	var n uint64
	if flags&zmtpLong != 0 {
		if err := binary.Read(r, binary.BigEndian, &n); err != nil {
			return 0, nil, err
		}
	} else {
		b, err := r.ReadByte()
		if err != nil {
			return 0, nil, err
		}
		n = uint64(b)
	}
	if n > 16<<20 {
		return 0, nil, fmt.Errorf("zmtp: frame of %d bytes", n)
	}
	body = make([]byte, n)
	_, err = io.ReadFull(r, body)
	return flags, body, err
}

// zmtpSub is a connected SUB socket.
type zmtpSub struct {
	c net.Conn
	r *bufio.Reader
}

// dialSub connects to a PUB socket at addr (host:port), handshakes and
// subscribes to every topic starting with prefix.
func dialSub(ctx context.Context, addr, prefix string) (*zmtpSub, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &zmtpSub{c: c, r: bufio.NewReader(c)}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if err := s.handshake(prefix); err != nil {
		c.Close()
		return nil, fmt.Errorf("zmtp %s: %w", addr, err)
	}
	c.SetDeadline(time.Time{})
	return s, nil
}

func (s *zmtpSub) handshake(prefix string) error {
	if _, err := s.c.Write(zmtpGreeting()); err != nil {
		return err
	}
	peer := make([]byte, 64)
	if _, err := io.ReadFull(s.r, peer); err != nil {
		return err
	}
	if peer[0] != 0xff || peer[9] != 0x7f || peer[10] < 3 || string(bytes.TrimRight(peer[12:32], "\x00")) != "NULL" {
		return errors.New("not a ZMTP 3 peer with NULL security")
	}
	if _, err := s.c.Write(zmtpFrame(zmtpCommand, zmtpCommandBody("READY", zmtpReady("SUB")))); err != nil {
		return err
	}
	flags, body, err := readFrame(s.r)
	if err != nil {
		return err
	}
	if flags&zmtpCommand == 0 || len(body) < 6 || string(body[1:6]) != "READY" {
		return errors.New("no READY from the peer")
	}
	if !bytes.Contains(body, []byte("PUB")) {
		return errors.New("the peer is not a PUB socket")
	}
	// ZMTP 3.0 subscription: a message of 0x01 and the prefix.
	_, err = s.c.Write(zmtpFrame(0, append([]byte{1}, prefix...)))
	return err
}

// recv returns the next multipart message. PING commands are answered.
func (s *zmtpSub) recv() ([][]byte, error) {
	var parts [][]byte
	for {
		flags, body, err := readFrame(s.r)
		if err != nil {
			return nil, err
		}
		if flags&zmtpCommand != 0 {
			if len(body) >= 5 && string(body[1:5]) == "PING" && len(body) >= 7 {
				s.c.Write(zmtpFrame(zmtpCommand, zmtpCommandBody("PONG", body[7:])))
			}
			continue
		}
		parts = append(parts, body)
		if flags&zmtpMore == 0 {
			return parts, nil
		}
	}
}

// Close closes the connection.
func (s *zmtpSub) Close() error { return s.c.Close() }
