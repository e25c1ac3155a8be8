// Runs MODAQ's own QBJ import (src/qbj/QBJ.ts fromQBJ) on a Match file, as its "Import from QBJ"
// dialog does (ImportFromQBJDialogController.onSubmit), with a generated packet: 40 tossups of
// 40 words, the power mark (*) after word 10. Prints {"ok", "message" | "scores", ...} as JSON.
import * as fs from "fs";
import * as QBJ from "../alopezlago+MODAQ/src/qbj/QBJ";
import { PacketState, Tossup, Bonus } from "../alopezlago+MODAQ/src/state/PacketState";
import * as GameFormats from "../alopezlago+MODAQ/src/state/GameFormats";

const file = process.argv[2];
const formatName = process.argv[3] || "powers";
let match = JSON.parse(fs.readFileSync(file, "utf8"));
if (match.objects) {
    // a whole QBJ file: MODAQ opens a Match object; take the first Match of the Tournament
    match = match.objects[0].phases[0].rounds[0].matches[Number(process.argv[4] || 0)];
}
const words = Array.from({ length: 40 }, (_, i) => "word" + i).join(" ");
const packet = new PacketState();
const tossups: Tossup[] = [];
const bonuses: Bonus[] = [];
for (let i = 0; i < 40; i++) {
    tossups.push(new Tossup(words.replace("word10", "word10 (*)"), "answer " + i));
    bonuses.push(new Bonus("leadin " + i, [1, 2, 3].map((n) => ({ question: "part " + n, answer: "a", value: 10 }))));
}
packet.setTossups(tossups);
packet.setBonuses(bonuses);
const format =
    formatName === "acf" ? GameFormats.ACFGameFormat : formatName === "free" ? GameFormats.UndefinedGameFormat
        : GameFormats.StandardPowersMACFGameFormat;
let out: any;
try {
    const result = QBJ.fromQBJ(match, packet, format);
    if (result.success) {
        const game = result.value;
        out = { ok: true, scores: game.finalScore, cycles: game.cycles.length, teams: game.teamNames };
        // what MODAQ would export again: the round trip must hold the same buzzes
        const again = QBJ.toQBJ(game);
        out.reexported_questions = again.match_questions.length;
    } else {
        out = { ok: false, message: result.message };
    }
} catch (e: any) {
    out = { ok: false, message: "crash: " + (e && e.stack ? e.stack.split("\n").slice(0, 3).join(" | ") : String(e)) };
}
console.log(JSON.stringify(out));
