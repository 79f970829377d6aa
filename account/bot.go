package account

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/endodoi/endodoi/store"
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
func (s *Service) CreateBot(ctx context.Context, name string) (*store.Account, string, error) {
	display, key, err := ParseUsername(name)
	if err != nil {
		return nil, "", err
	}
	lobby, ok := s.st.(store.Lobby)
	if !ok {
		return nil, "", errors.New("this store keeps no bots")
	}
	token, hash := NewBotToken()
	a := &store.Account{Name: display, Key: key}
	if err := lobby.CreateBot(ctx, a, hash); err != nil {
		if errors.Is(err, store.ErrExists) {
			return nil, "", ErrNameTaken
		}
		return nil, "", fmt.Errorf("making a bot: %w", err)
	}
	return a, token, nil
}

// Bot returns the active bot account whose token is token (ErrNoSession
// if none).
func (s *Service) Bot(ctx context.Context, token string) (*store.Account, error) {
	lobby, ok := s.st.(store.Lobby)
	if !IsBotToken(token) || !ok {
		return nil, ErrNoSession
	}
	a, err := lobby.BotAccount(ctx, HashBotToken(token))
	if errors.Is(err, store.ErrNotFound) {
		return nil, ErrNoSession
	}
	return a, err
}

// BotCommand opens the store of the server (dbURL, or the SQLite database
// in dataDir), makes a bot's account named name and prints its token to
// out, once, for the site's operator.
func BotCommand(ctx context.Context, dbURL, dataDir, name string, out io.Writer) error {
	st, err := store.OpenURL(ctx, dbURL, dataDir)
	if err != nil {
		return err
	}
	defer st.Close()
	a, token, err := (&Service{st: st}).CreateBot(ctx, name)
	if err != nil {
		return fmt.Errorf("bot %q: %w", name, err)
	}
	if err := st.Close(); err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "bot %s made; its token (shown once, keep it secret):\n%s\n", a.Name, token)
	return err
}
