package reply

import (
	"fmt"
	"io"

	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/series"
)

// Render writes the body of the replies Compose would send for the series
// (check --format email): the series reply, then each per-patch reply after
// a "-----8<----- Re: <subject>" separator line. It writes nothing when
// there is no reply to send.
func Render(w io.Writer, r *report.Report, s *series.Series, opts Options) error {
	mails, err := Compose(r, s, opts)
	if err != nil {
		return err
	}
	for i, m := range mails {
		if i > 0 || len(mails) > 1 {
			if _, err := fmt.Fprintf(w, "-----8<----- %s\n", m.Subject); err != nil {
				return err
			}
		}
		if _, err := io.WriteString(w, m.Body); err != nil {
			return err
		}
	}
	return nil
}
