package config

import "github.com/autosel-bot/autosel-bot/reply"

// ReplyConfig configures the reply section (see config.yaml): sender,
// greeting, signature, per-patch replies. It is reply.Options, so the
// section is passed as is to reply.Render and reply.Compose (set Version
// and Now in code).
type ReplyConfig = reply.Options
