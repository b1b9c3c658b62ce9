package mail_test

import (
	"testing"

	"github.com/flagshipctf/flagship/internal/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }
