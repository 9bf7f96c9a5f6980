// Package all lists every rule family, in report order. Adding a family
// is one line here, its package under rules/ and its table in
// rules/tables/. The list lives outside package rules because the
// families import it.
package all

import (
	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/rules/sleep"
	"github.com/autosel-bot/autosel-bot/rules/wakeup"
)

// Constructors returns the constructor of every rule family, in report
// order.
func Constructors() []rules.Constructor {
	return []rules.Constructor{
		sleep.New,
		wakeup.New,
	}
}

// Rules returns every rule family built with opts.
func Rules(opts rules.Options) ([]*rules.Rule, error) {
	return rules.Build(opts, Constructors())
}
