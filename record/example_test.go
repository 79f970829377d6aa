package record_test

import (
	"fmt"
	"log"
	"os"

	"github.com/endodoi/endodoi/record"
	"github.com/endodoi/endodoi/rules"
)

func Example() {
	r, err := record.Parse(`[Event "Casual game"]
[South "Naserian"]
[North "endodoi level 5"]
[Holes "6"]
[Seeds "4"]

1. a A 2. a B 3. a B 4. a C 5. a A 6. c A 7. e A {South has no move left} 0-1
`)
	if err != nil {
		log.Fatal(err)
	}
	g, err := r.Game()
	if err != nil {
		log.Fatal(err)
	}
	south, north := g.Score()
	fmt.Printf("%s (South) %d, %s (North) %d: %s after %d moves\n",
		r.South, south, r.North, north, g.Result(), g.Ply())
	// Output:
	// Naserian (South) 17, endodoi level 5 (North) 31: North wins after 14 moves
}

func ExampleNew() {
	start, err := rules.NewPosition(3, 2)
	if err != nil {
		log.Fatal(err)
	}
	g, err := rules.NewGame(start, rules.DefaultRules())
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range []string{"a", "B", "b"} {
		mv, err := rules.ParseMove(m)
		if err != nil {
			log.Fatal(err)
		}
		if err := g.Play(mv); err != nil {
			log.Fatal(err)
		}
	}
	r := record.New(g)
	r.Date = "2026-11-29"
	if _, err := r.WriteTo(os.Stdout); err != nil {
		log.Fatal(err)
	}
	js, err := r.MarshalJSON()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(js))
	// Output:
	// [Date "2026-11-29"]
	// [Holes "3"]
	// [Seeds "2"]
	// [Variant "standard"]
	// [MaxLaps "1000"]
	// [Result "*"]
	// [Score "4-2"]
	//
	// 1. a B 2. b *
	// {"date":"2026-11-29","holes":3,"seeds":2,"variant":"standard","maxLaps":1000,"result":"*","score":"4-2","moves":["a","B","b"]}
}

func ExampleParse_error() {
	_, err := record.Parse("[Holes \"6\"]\n[Seeds \"4\"]\n\n1. a A 2. a B\n3. a B 4. a C 5. a A 6. c A 7. a\n")
	fmt.Println(err)
	// Output:
	// record: line 5, column 32: move 13 (a): empty hole: there are no seeds to lift
}
