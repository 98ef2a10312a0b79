// The playground's second built-in sample: an OpenClaw session (transcript format v4) in
// which one user talks to a personal assistant about several unrelated things over one day,
// and comes back to an earlier one: a hiking trip, sourdough bread, a CSV script that
// crashes (with tool calls and thinking), then the trip again. Synthetic text written for
// this sample; deterministic: same bytes on every run.
// usage: node samples/generate-multitopic.mjs > samples/multitopic.jsonl
import { pathToFileURL } from "node:url";

export function multitopicJsonl() {
  let seq = 0;
  let parent = null;
  let callN = 0;
  const t0 = Date.parse("2026-10-14T07:30:00Z");
  const out = [{ type: "session", version: 4, id: "sample-multitopic-day", timestamp: new Date(t0).toISOString(), cwd: "/home/mira" }];
  const at = () => t0 + seq * 41000;
  function entry(obj) {
    const id = `m${String(++seq).padStart(4, "0")}`;
    out.push({ type: obj.type, id, parentId: parent, timestamp: new Date(at()).toISOString(), ...obj });
    parent = id;
  }
  const usage = (input, output) => ({
    input,
    output,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: input + output,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  });
  const asst = (content, stopReason = "stop") => ({
    role: "assistant",
    content,
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-sonnet-5",
    usage: usage(900 + seq * 40, 160),
    stopReason,
    timestamp: at() + 41000,
  });
  const think = (s) => ({ type: "thinking", thinking: s, thinkingSignature: `sig-${seq}` });
  const text = (s) => ({ type: "text", text: s });
  const call = (name, args) => ({ type: "toolCall", id: `toolu_${String(++callN).padStart(3, "0")}`, name, arguments: args });
  const result = (c, s, isError = false) => ({
    role: "toolResult",
    toolCallId: c.id,
    toolName: c.name,
    content: [text(s)],
    isError,
    timestamp: at() + 41000,
  });
  const user = (s) => entry({ type: "message", message: { role: "user", content: [text(s)], timestamp: at() + 41000 } });
  const msg = (m) => entry({ type: "message", message: m });
  const lines = (n, f) => Array.from({ length: n }, (_, i) => f(i + 1)).join("\n");

  entry({ type: "model_change", provider: "anthropic", modelId: "claude-sonnet-5" });

  // Topic A: a hiking trip in the Dolomites.
  user("I'm planning a four-day hut-to-hut hike in the Dolomites in late June. Which trail would you pick for a first trip?");
  const w1 = call("web_search", { query: "Alta Via 1 Dolomites huts June opening dates" });
  msg(
    asst(
      [think("A first hut-to-hut trek in the Dolomites: Alta Via 1 is the classic, well marked, huts every few hours. Check when the huts open in June."), w1],
      "toolUse",
    ),
  );
  msg(
    result(
      w1,
      lines(
        24,
        (i) =>
          `result ${i}: Rifugio ${["Lagazuoi", "Fanes", "Pederü", "Sennes", "Biella", "Averau", "Nuvolau", "Scotoni"][i % 8]} — opening ${i % 3 === 0 ? "20" : "15"} June, dormitory beds, half board, booking recommended; trail sections ${i}–${i + 1} of the Alta Via 1 between Lago di Braies and Passo Giau`,
      ),
    ),
  );
  msg(
    asst([
      think("Most huts open mid to late June; snow may linger on the Forcella Lagazuoi. Suggest the northern half of Alta Via 1, four stages."),
      text(
        "For a first trip I'd walk the northern half of the Alta Via 1: Lago di Braies → Rifugio Biella → Rifugio Fanes → Rifugio Lagazuoi → Passo Giau. The huts open around 15–20 June, the trail is well marked, and each stage is 5–7 hours. Book the huts early; late June can still have snow patches below Forcella Lagazuoi.",
      ),
    ]),
  );

  user("What should I pack for the huts? I want to keep the rucksack under eight kilos.");
  msg(
    asst([
      think("Packing list for hut trekking: huts provide blankets and meals, so a sleeping bag liner is enough. Keep the base weight low."),
      text(
        "Huts give you blankets and half board, so skip the sleeping bag and stove. Take a 30-litre rucksack with: a silk sleeping bag liner (mandatory in most huts), hut slippers or light sandals, a rain jacket and overtrousers, a fleece, a warm hat and gloves, sun cream and sunglasses, a 1.5 l water bottle, a small first-aid kit, a headlamp, cash for the huts, and the paper map (Tabacco 03). That stays around seven kilos.",
      ),
    ]),
  );

  user("Is the via ferrata section on the Lagazuoi hard? I've never clipped in before.");
  msg(
    asst([
      think(
        "The Lagazuoi tunnels and the Kaiserjäger via ferrata: the tunnels are easy with a headlamp; the Kaiserjäger is graded moderate. A beginner can take the tunnels or the cable car.",
      ),
      text(
        "The Alta Via 1 itself needs no via ferrata gear. Near the Lagazuoi you can walk down through the wartime tunnels (easy, bring a headlamp and a helmet) or take the cable car. The Kaiserjäger via ferrata is graded moderate; as a first via ferrata, go with a guide or rent a harness, lanyard and helmet in Cortina.",
      ),
    ]),
  );

  // Topic B: sourdough bread.
  user("Different question: my sourdough loaves come out flat and dense. My starter is two weeks old. What am I doing wrong?");
  msg(
    asst([
      think(
        "Flat dense sourdough: usually an underactive starter or underproofing, or too high hydration for the flour. Ask about hydration and bulk fermentation; give diagnostics.",
      ),
      text(
        "Flat and dense usually means under-fermented dough. A two-week-old starter is often not strong yet: feed it 1:1:1 twice a day at room temperature until it reliably doubles within 4–6 hours. Then check three things: hydration (start at 70 % water with bread flour), bulk fermentation (let the dough rise by about 50 % with folds every 30 minutes, often 4–6 hours at 24 °C), and shaping (build surface tension so the loaf holds its shape in the banneton).",
      ),
    ]),
  );

  user("How do I know when the bulk fermentation is done? I always go by the clock.");
  msg(
    asst([
      think(
        "Signs of finished bulk: volume increase 50-75%, domed edges, bubbles on the surface and sides, jiggly, pulls away cleanly. Suggest a straight-sided container.",
      ),
      text(
        "Go by the dough, not the clock. Bulk is done when the dough has grown 50–75 % (use a straight-sided container with a rubber band at the start level), the surface is domed with a few bubbles, the sides show bubbles through the container, and the dough jiggles when you shake it. In a cold kitchen that can take twice as long as the recipe says.",
      ),
    ]),
  );

  user("Should the levain be used at its peak, or a bit before?");
  msg(
    asst([
      think("Levain timing: use at or just before peak for the most leavening power; past peak it gets acidic and weaker gluten. Float test is unreliable."),
      text(
        "Use the levain at its peak or slightly before: domed top, about double in volume, full of bubbles. Past the peak it turns acidic, weakens the gluten and gives you exactly the flat loaf you describe. If your levain peaks at 5 hours, mix the dough at hour 4 to 5.",
      ),
    ]),
  );

  // Topic C: a CSV script that crashes (agentic, with tools).
  user("My script import_budget.py crashes on the bank export. Can you look at it?");
  const c1 = call("read", { path: "scripts/import_budget.py" });
  msg(asst([think("Read the script first."), c1], "toolUse"));
  msg(
    result(
      c1,
      lines(60, (i) =>
        i === 31
          ? "        amount = float(row['Amount'])"
          : i === 30
            ? "    for row in csv.DictReader(f, delimiter=';'):"
            : i % 12 === 1
              ? `def step_${i}(rows):`
              : `    # bookkeeping line ${i}: categorise, sum by month, write report`,
      ),
    ),
  );
  const c2 = call("exec", { command: "python3 scripts/import_budget.py exports/bank-2026-09.csv" });
  msg(asst([think("Line 31 converts the amount with float(); the bank export probably uses a decimal comma. Run it to see the error."), c2], "toolUse"));
  msg(
    result(
      c2,
      "Traceback (most recent call last):\n  File \"scripts/import_budget.py\", line 31, in load\n    amount = float(row['Amount'])\nValueError: could not convert string to float: '1.234,56'",
      true,
    ),
  );
  msg(
    asst([
      think("Decimal comma and thousands dot: '1.234,56'. Fix by removing the dots and replacing the comma, or use Decimal after normalising."),
      text(
        "The bank writes amounts the German way (`1.234,56`), and `float()` only understands `1234.56`. Line 31 needs to normalise the string first: `amount = Decimal(row['Amount'].replace('.', '').replace(',', '.'))`. Want me to apply that?",
      ),
    ]),
  );

  user("Yes please, apply it and run it again.");
  const c3 = call("edit", {
    path: "scripts/import_budget.py",
    old: "amount = float(row['Amount'])",
    new: "amount = Decimal(row['Amount'].replace('.', '').replace(',', '.'))",
  });
  msg(asst([think("Apply the edit; also need from decimal import Decimal at the top."), c3], "toolUse"));
  msg(result(c3, "edited scripts/import_budget.py: 1 replacement"));
  const c4 = call("edit", { path: "scripts/import_budget.py", old: "import csv", new: "import csv\nfrom decimal import Decimal" });
  const c5 = call("exec", { command: "python3 scripts/import_budget.py exports/bank-2026-09.csv" });
  msg(asst([think("Add the import, then rerun."), c4], "toolUse"));
  msg(result(c4, "edited scripts/import_budget.py: 1 replacement"));
  msg(asst([c5], "toolUse"));
  msg(
    result(
      c5,
      lines(
        30,
        (i) =>
          `2026-09-${String(i).padStart(2, "0")}  ${["groceries", "rent", "transport", "eating out", "utilities"][i % 5].padEnd(12)} ${(i * 37.45).toFixed(2).padStart(9)} EUR`,
      ) + "\n\nimported 30 rows, 5 categories, total 17409.25 EUR",
    ),
  );
  msg(
    asst([
      think("It works: 30 rows imported."),
      text(
        "Fixed and rerun: the script now parses decimal-comma amounts with `Decimal` and imported all 30 rows of the September export (5 categories, 17,409.25 EUR in total).",
      ),
    ]),
  );

  user("Could the same thing happen with the dates? They look like 14.10.2026.");
  msg(
    asst([
      think("Dates in dd.mm.yyyy; if parsed with datetime.fromisoformat it fails. Suggest strptime with %d.%m.%Y."),
      text(
        "Yes, if the script parses dates with `date.fromisoformat`, `14.10.2026` will fail the same way. Use `datetime.strptime(row['Date'], '%d.%m.%Y').date()`; it also rejects impossible dates instead of silently swapping day and month.",
      ),
    ]),
  );

  // Back to topic A.
  user("Back to the Dolomites trip: how do I get from Munich to Lago di Braies by train and bus?");
  msg(
    asst([
      think("Munich to Lago di Braies: train Munich–Innsbruck–Fortezza–Dobbiaco, then bus 442 to Braies in summer; parking restricted so the bus is the way."),
      text(
        "Take the train from München Hbf to Innsbruck, continue over the Brenner to Fortezza/Franzensfeste, and change to the Pustertal line to Dobbiaco/Toblach (about 5½ hours in total). From Dobbiaco the summer bus 442 runs to Lago di Braies in 35 minutes; in July and August the road is closed to cars in the daytime, so the bus is the easy option.",
      ),
    ]),
  );

  user("Which huts on the Alta Via 1 should I book first? I read the Lagazuoi hut fills up.");
  msg(
    asst([
      think("Hut booking order: Rifugio Lagazuoi and Rifugio Biella are small or popular; book those first, then Fanes. Booking opens in winter."),
      text(
        "Book Rifugio Lagazuoi first: it is the most popular hut on the Alta Via 1 and its dormitory fills months ahead for late June. Rifugio Biella is small, so book it next; Rifugio Fanes has more beds. Most huts take bookings by email from January, and ask for a deposit.",
      ),
    ]),
  );

  return out.map((o) => JSON.stringify(o)).join("\n") + "\n";
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) process.stdout.write(multitopicJsonl());
