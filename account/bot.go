package account

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// BotTokenPrefix begins every bot token, so that a token is told from a
// seat's at a glance (and by a secret scanner).
const BotTokenPrefix = "bot_"

// botTokenLen is the length of a bot token: the prefix and 32 random
// bytes in base64url. A seat's token is 22 characters: no seat token has
// this length.
const botTokenLen = len(BotTokenPrefix) + 43

// IsBotToken reports whether token has the form of a bot's token.
func IsBotToken(token string) bool {
	if len(token) != botTokenLen || !strings.HasPrefix(token, BotTokenPrefix) {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(token[len(BotTokenPrefix):])
	return err == nil
}

// NewBotToken returns a new bot token, 256 random bits, and the hash the
// store keeps of it.
func NewBotToken() (token, hash string) {
	var b [32]byte
	rand.Read(b[:])
	token = BotTokenPrefix + base64.RawURLEncoding.EncodeToString(b[:])
	return token, HashBotToken(token)
}

// HashBotToken is the SHA-256 of a bot token, hex: what the store keeps.
func HashBotToken(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// CreateBot makes a bot's account named name and returns it with its
// token, which is shown this once: the store keeps only its hash.
func (s *Service) CreateBot(ctx context.Context, name string) (*Account, string, error) {
	a, err := s.newAccount(ctx, name)
	if err != nil {
		return nil, "", err
	}
	token, hash := NewBotToken()
	if err := s.st.CreateBot(ctx, a, hash); err != nil {
		if errors.Is(err, ErrExists) {
			return nil, "", ErrNameTaken
		}
		return nil, "", fmt.Errorf("making a bot: %w", err)
	}
	return a, token, nil
}

// Bot returns the active bot account whose token is token (ErrNoSession
// if none).
func (s *Service) Bot(ctx context.Context, token string) (*Account, error) {
	if !IsBotToken(token) {
		return nil, ErrNoSession
	}
	a, err := s.st.BotAccount(ctx, HashBotToken(token))
	if errors.Is(err, ErrNotFound) {
		return nil, ErrNoSession
	}
	return a, err
}
