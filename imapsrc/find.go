package imapsrc

import (
	"context"
	"errors"
	"fmt"

	"github.com/emersion/go-imap/v2"
)

// Finder looks Message-IDs up in IMAP mailboxes. The deliverer uses it to
// settle a reply interrupted mid-send: the list's own mailbox (where the
// bot's reply comes back like any list mail) or a Sent folder shows
// whether the SMTP server accepted it.
type Finder struct {
	servers []Server
}

// NewFinder returns a Finder over the given servers and their mailboxes
// (patterns allowed).
func NewFinder(servers []Server) (*Finder, error) {
	f := &Finder{}
	for _, s := range servers {
		s, err := s.withDefaults()
		if err != nil {
			return nil, err
		}
		f.servers = append(f.servers, s)
	}
	if len(f.servers) == 0 {
		return nil, errors.New("imap finder: no server")
	}
	return f, nil
}

// Seen reports whether a message with this Message-ID (without angle
// brackets) is in any of the mailboxes. An error means the answer is
// unknown (a server could not be asked).
func (f *Finder) Seen(ctx context.Context, messageID string) (bool, error) {
	var firstErr error
	for i := range f.servers {
		ok, err := f.seenOn(ctx, &f.servers[i], messageID)
		if ok {
			return true, nil
		}
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return false, firstErr
}

func (f *Finder) seenOn(ctx context.Context, s *Server, messageID string) (bool, error) {
	c, err := s.dial(nil)
	if err != nil {
		return false, err
	}
	defer c.Close()
	// Cancelling ctx closes the connection, ending any blocked command.
	defer context.AfterFunc(ctx, func() { c.Close() })()
	boxes, err := s.resolve(c)
	if err != nil {
		return false, err
	}
	for _, mbox := range boxes {
		if _, err := c.Select(mbox, &imap.SelectOptions{ReadOnly: true}).Wait(); err != nil {
			return false, fmt.Errorf("imap %s: EXAMINE %s: %w", s.Addr, mbox, err)
		}
		data, err := c.UIDSearch(&imap.SearchCriteria{
			Header: []imap.SearchCriteriaHeaderField{{Key: "Message-ID", Value: "<" + messageID + ">"}},
		}, nil).Wait()
		if err != nil {
			return false, fmt.Errorf("imap %s: SEARCH %s in %s: %w", s.Addr, messageID, mbox, err)
		}
		if len(data.AllUIDs()) > 0 {
			return true, nil
		}
	}
	c.Logout().Wait()
	return false, nil
}
