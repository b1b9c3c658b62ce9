package platform

import "github.com/flagshipctf/flagship/internal/secret"

var (
	parseKey  = secret.ParseAPIKey
	hashToken = secret.HashToken
	equalHash = secret.EqualHash
)
