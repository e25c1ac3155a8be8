// Runs YellowFruit's own QBJ game import on a file, as TournamentManager.importMatchesFromQbj /
// importMatchesFromWholeQbj / importSingleMatchObj do (their UI-free lines, same calls, same
// order), into a tournament whose teams and players were registered first by name (as a
// director does before importing games). Prints {"results": [{status, messages, scores}]}.
import * as fs from "fs";
import Tournament from "../ANadig+YellowFruit/src/renderer/DataModel/Tournament";
import { Team } from "../ANadig+YellowFruit/src/renderer/DataModel/Team";
import { Player } from "../ANadig+YellowFruit/src/renderer/DataModel/Player";
import Registration from "../ANadig+YellowFruit/src/renderer/DataModel/Registration";
import { Phase, PhaseTypes } from "../ANadig+YellowFruit/src/renderer/DataModel/Phase";
import { Pool } from "../ANadig+YellowFruit/src/renderer/DataModel/Pool";
import { ScoringRules, CommonRuleSets } from "../ANadig+YellowFruit/src/renderer/DataModel/ScoringRules";
import FileParser from "../ANadig+YellowFruit/src/renderer/DataModel/FileParsing";
import { snakeCaseToCamelCase } from "../ANadig+YellowFruit/src/renderer/DataModel/CaseConversion";
import { qbjFileValidVersion } from "../ANadig+YellowFruit/src/renderer/DataModel/QbjUtils";
import { collectRefTargets } from "../ANadig+YellowFruit/src/renderer/DataModel/QbjUtils2";
import MatchImportResult, { ImportResultStatus } from "../ANadig+YellowFruit/src/renderer/DataModel/MatchImportResult";

const file = process.argv[2];
const rules = process.argv[3] || "naqt";
const text = fs.readFileSync(file, "utf8");
const raw = JSON.parse(text);

// the tournament: the teams named in the file's Matches, registered by hand beforehand
const tourn = new Tournament("harness");
tourn.scoringRules = new ScoringRules(rules === "acf" ? CommonRuleSets.Acf : rules === "acfpowers"
    ? CommonRuleSets.AcfPowers : CommonRuleSets.NaqtUntimed);
if (rules === "bounce") tourn.scoringRules.bonusesBounceBack = true;
const prelim = new Phase(PhaseTypes.Prelim, 1, 30, "1");
const pool = new Pool(8, 1, "Pool A");
prelim.pools = [pool];
tourn.phases = [prelim];
const seen = new Set<string>();
const matches: any[] = raw.objects ? raw.objects[0].phases.flatMap((ph: any) => ph.rounds.flatMap((r: any) => r.matches)) : [raw];
for (const m of matches) {
    for (const mt of m.match_teams || []) {
        const t = mt.team;
        if (!t || !t.name || seen.has(t.name)) continue;
        seen.add(t.name);
        const team = new Team(t.name);
        team.players = (t.players || []).map((p: any) => new Player(p.name));
        tourn.addRegistration(new Registration(t.name, team));
        pool.addTeam(team);
    }
}

const results: MatchImportResult[] = [];
const obj = JSON.parse(text);
try {
    snakeCaseToCamelCase(obj);
    if (obj.objects) {
        // TournamentManager.importMatchesFromWholeQbj
        const whole = new MatchImportResult(file);
        if (!qbjFileValidVersion(obj)) {
            whole.markFatal("This file doesn't use a supported version of the tournament schema.");
            results.push(whole);
        } else {
            const refTargets = collectRefTargets(obj.objects);
            const found = FileParser.findMatches(obj.objects);
            if (found.length === 0) {
                whole.markFatal(`The file ${file} contains no Match objects.`);
                results.push(whole);
            }
            const parser = new FileParser(refTargets, tourn, undefined);
            parser.buildTypesByIdArrays(obj.objects);
            for (const mr of found) {
                const one = new MatchImportResult(file);
                const round = tourn.getRoundObjByNumber(Number.parseInt(mr.roundName, 10));
                if (round === undefined) {
                    one.markFatal(`Couldn't find a round in this tournament matching "${mr.roundName}"`);
                    results.push(one);
                    continue;
                }
                const phase = tourn.findPhaseByRound(round)!;
                importSingle(mr.match, phase, round, one, parser);
                results.push(one);
            }
        }
    } else {
        // a single Match file (as MODAQ writes): imported into round 1
        const one = new MatchImportResult(file);
        const round = tourn.getRoundObjByNumber(1)!;
        importSingle(obj, tourn.findPhaseByRound(round)!, round, one);
        results.push(one);
    }
    MatchImportResult.validateImportSetForTeamDups(results);
} catch (e: any) {
    console.log(JSON.stringify({ crash: String(e && e.stack ? e.stack.split("\n").slice(0, 4).join(" | ") : e) }));
    process.exit(0);
}

function importSingle(match: any, phase: Phase, round: any, result: MatchImportResult, existing?: FileParser) {
    // TournamentManager.importSingleMatchObj
    result.phase = phase;
    result.round = round;
    const parser = existing ?? new FileParser({}, tourn);
    parser.importPhase = phase;
    let yfMatch;
    try {
        yfMatch = parser.parseMatch(match);
    } catch (err: any) {
        result.markFatal(err.message);
        return;
    }
    if (yfMatch) {
        Tournament.validateHaveTeamsPlayedInRound(yfMatch, round, phase, false);
        result.evaluateMatch(yfMatch);
    }
}

console.log(JSON.stringify({
    results: results.map((r) => ({
        status: ImportResultStatus[r.status],
        messages: r.messages,
        scores: r.match ? [r.match.leftTeam.points, r.match.rightTeam.points] : null,
        bounceback: r.match ? [r.match.leftTeam.bonusBouncebackPoints, r.match.rightTeam.bonusBouncebackPoints] : null,
        tossups_read: r.match ? r.match.tossupsRead : null,
        overtime_tossups_read: r.match ? r.match.overtimeTossupsRead : null,
    })),
}));
