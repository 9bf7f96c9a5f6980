package reply

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	amail "github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/report"
)

// CommandMessageID returns the deterministic Message-ID (without angle
// brackets) of the bot's answer to the command mail msgID: a command run
// again after a crash is answered under the same id, so the send-once
// protocol delivers its answer once.
func CommandMessageID(msgID, domain string) string {
	h := sha256.Sum256([]byte("autosel-bot command reply\x00" + strings.Trim(msgID, "<>")))
	return fmt.Sprintf("autosel-bot.cmd.%s@%s", hex.EncodeToString(h[:10]), domain)
}

// CommandReply composes the answer to a command mail: threaded under it
// (In-Reply-To, References), to its sender, and, unless private (a
// refusal goes to the sender alone), Cc to the mail's other recipients
// (the list, the author). body is the answer; the greeting, the
// automated-mail line and the signature are added.
func CommandReply(msg *amail.Message, body string, private bool, opts Options) *Mail {
	var b strings.Builder
	writeHead(&b, opts)
	b.WriteString(strings.TrimRight(body, "\n") + "\n")
	writeTail(&b, nil, "", "", false, false, opts)
	from := opts.fromAddr()
	m := &Mail{
		From:      from,
		Subject:   replySubject(msg.Subject.Raw),
		Date:      opts.now(),
		MessageID: CommandMessageID(msg.MessageID, opts.idDomain()),
		InReplyTo: strings.Trim(msg.MessageID, "<>"),
		Body:      b.String(),
	}
	for _, ref := range msg.References {
		if ref = strings.Trim(ref, "<> "); ref != "" && ref != m.InReplyTo {
			m.References = append(m.References, ref)
		}
	}
	if len(m.References) == 0 && msg.InReplyTo != "" {
		m.References = append(m.References, strings.Trim(msg.InReplyTo, "<>"))
	}
	m.References = append(m.References, m.InReplyTo)
	ab := newAddrBook(from.Address, opts.stableList())
	ab.add(&m.To, msg.From.Name, msg.From.Addr)
	if !private {
		for _, a := range msg.To {
			ab.add(&m.Cc, a.Name, a.Addr)
		}
		for _, a := range msg.Cc {
			ab.add(&m.Cc, a.Name, a.Addr)
		}
	}
	m.Dropped = capRecipients(m, msg.From.Addr, opts)
	m.Headers = [][2]string{
		{"Auto-Submitted", "auto-replied"},
		{"X-Autosel-Bot", strings.TrimSpace("autosel-bot " + opts.Version)},
	}
	return m
}

// Explain renders a finding in full for "#autosel explain": head, id,
// message, object, explanation, every evidence and removed line (the
// interleaving of a wakeup finding among them) and the whole call chain,
// none of it cut.
func Explain(f *report.Finding) string {
	var b strings.Builder
	writeFindingsLimit(&b, []report.Finding{*f}, 0, nil)
	return b.String()
}

// TestBody renders the answer to "#autosel test": the VM regression
// suite's result (or why it did not run), the stable trees tried per
// patch, and how to run it by hand (command, with the report's base and
// the bot's version).
func TestBody(r *report.Report, command string) string {
	var b strings.Builder
	if r.VM != nil {
		writeVM(&b, r.VM)
	} else {
		b.WriteString("The VM regression suite did not run.\n")
	}
	for _, n := range r.Notes {
		if strings.Contains(n, "VM") || strings.HasPrefix(n, "vm") || strings.HasPrefix(n, "stable") {
			b.WriteString("Note: " + cleanLine(n) + "\n")
		}
	}
	for _, e := range r.Errors {
		b.WriteString("Error: " + cleanLine(e.String()) + "\n")
	}
	for i := range r.Patches {
		p := &r.Patches[i]
		if !hasStable(p) {
			continue
		}
		sep(&b)
		b.WriteString(patchName(p) + ":\n")
		writeStableTrees(&b, p.Stable)
	}
	if command != "" {
		sep(&b)
		b.WriteString(reproduceTitle + "\n")
		if rp := r.Reproduce; rp != nil {
			b.WriteString("    base: " + cleanLine(rp.BaseText()) + "\n    bot: autosel-bot " + cleanLine(rp.Version) + "\n")
		}
		b.WriteString("    command: " + cleanLine(command) + "\n")
	}
	return b.String()
}
