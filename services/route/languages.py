"""Tasks written partly or wholly in another language, read as the English route's reading knows.

Not a translator: a small lexicon per language of the words route's reading turns on, the verbs of
its actions (fix, delete, show, explain, search, list, stop, start, run, review, check, sync,
reset, resume), their negations ("no cambies nada": change nothing), the nouns of its objects
(sessions, agents, runs, loops, teams, files, tests, changes, decisions) and the question words.
Spanish, Portuguese, French, German, Italian and Dutch, with a few words of Chinese and Japanese.

Each language has words that are never English ("lösche", "muéstrame"), read as English wherever
they stand, and words that are English too or another language's ("die", "come", "wie"), read as
that language's only when the task is written in it: when two or more of its marker words stand in
the task and no other language has as many. Phrases come first ("où en sommes-nous": where we left
off), then words. Built once at import; `english` is a few regex passes over the task.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["english", "language_of"]


@dataclass(frozen=True)
class _Language:
    markers: frozenset[str]  # function words that say the task is written in this language
    words: dict[str, str]  # never English: read as English wherever they stand
    context: dict[str, str]  # English too, or another language's: read only in a task in this language
    phrases: tuple[tuple[re.Pattern[str], str], ...]  # several words for one English sense, read first


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _table(spec: str) -> dict[str, str]:
    """`"show: muestra muestrame; delete: borra"` -> {"muestra": "show", "muestrame": "show", "borra": "delete"}."""
    out: dict[str, str] = {}
    for entry in spec.split(";"):
        if not entry.strip():
            continue
        english, _, spelled = entry.partition(":")
        for word in spelled.split():
            out.setdefault(word.lower(), english.strip().replace("_", " "))
    return out


def _phrases(*pairs: tuple[str, str]) -> tuple[tuple[re.Pattern[str], str], ...]:
    return tuple((re.compile(rf"(?<![\w/.-])(?:{pattern})(?![\w/-])", re.IGNORECASE), word) for pattern, word in pairs)


# Ages a prune reads ("de hace más de un año", "com mais de 6 meses", "älter als 6 Monate"), by language.
_UNITS = _table(
    "year: año ano an jahr anno jaar; years: años anos ans jahre jahren anni jaar jaren; month: mes mês mois monat "
    "mese maand; months: meses mois monate monaten mesi maanden; week: semana semaine woche settimana week; "
    "weeks: semanas semaines wochen settimane weken; day: día dia jour tag giorno dag; "
    "days: días dias jours tage tagen giorni dagen"
)
_ONE = frozenset({"un", "una", "um", "uma", "une", "einem", "einer", "einen", "ein", "uno", "een"})
_AGE = re.compile(
    r"\b(?:(?:de |con |com |mit )?(?:hace )?(?:más|mas|mais|plus|più|piu|oltre|meer) (?:de |di |dan |que )?|"
    r"(?:d'il y a |il y a )plus de |älter als |alter als |più vecchie? di |ouder dan |antiguas? de |antigos? de |"
    r"de plus de |von mehr als |mehr als |da più di |van meer dan )"
    r"(?P<count>\d+|un|una|um|uma|une|einem|einer|einen|ein|uno|een) (?P<unit>[^\W\d_]+)\b",
    re.IGNORECASE,
)

_ES = _Language(
    markers=_set(
        "el la los las del que qué se es está están por para con una un más dónde cuál cuáles cómo quién mis sus "
        "esta este estos y hay lo muy"
    ),
    words=_table(
        "fix: repara reparar arregla arreglar arréglame corrige corregir corrija soluciona solucionar; "
        "delete: borra borrar bórrame elimina eliminar elimíname suprime; "
        "show: muéstrame muestrame muestra enséñame enseñame; write: escribe escríbeme; work: trabajo; "
        "explain: explica explicar explícame explicame; search: busca buscar búscame encuentra; list: enumera listar; "
        "stop: detén detener deten párala; start: inicia iniciar empieza empezar comienza arranca lanza; "
        "run: ejecuta ejecutar; review: revisa revisar; check: comprueba comprobar verifica; "
        "sync: sincroniza sincronizar; resume: reanuda reanudar; reset: reinicia reiniciar; "
        "sessions: sesiones; session: sesión; agents: agentes; run: ejecución; runs: ejecuciones; loop: bucle; "
        "loops: bucles; teams: equipos; "
        "team: equipo; file: archivo fichero; files: archivos ficheros; tests: pruebas; function: función; "
        "functions: funciones; bug: fallo; bugs: fallos errores; changes: cambios; decisions: decisiones; "
        "where: dónde; which: cuál cuáles; how: cómo; who: quién quiénes; what: qué; why: porqué; calls: llama llaman; "
        "uses: utiliza utilizan; defined: definido definida; old: viejas viejos antiguas antiguos; "
        "risky: riesgoso arriesgado; now: ahora; today: hoy; movie: película; letter: carta; poem: poema; "
        "migration: migración; version: versión; schema: esquema; status: estado; report: informe; "
        "program: programa; running: ejecutándose corriendo; nothing: nada"
    ),
    context=_table(
        "the: el la los las lo; of: de del; in: en; with: con; for: para; by: por; and: y; or: o; a: un una; "
        "my: mi mis; is: es está; are: son están; without: sin; show: mostrar; "
        "list: lista; where: donde; which: cual; how: como; who: quien; what: que; change: cambia cambies; "
        "this: este esta; these: estos estas"
    ),
    phrases=_phrases(
        (
            r"¿?(?:d[oó]nde|en qu[eé] punto) (?:se |nos |lo |la )?(?:qued[oó]|quedamos|dejamos|dej[oó]|paramos|par[oó])"
            r"(?: (?:el|la))?",
            "where did we leave off on",
        ),
        (r"no (?:cambies|toques|modifiques|edites) nada|sin (?:cambiar|tocar|modificar) nada", "don't change anything"),
        (r"sin (?:cambiar|tocar|modificar|editar)", "without changing"),
        (r"se define", "is defined"),
        (r"punto de entrada", "entry point"),
        (r"qui[eé]n llama a", "who calls"),
        (r"(?:cambian|cambia) (?:más |mas )?(?:a menudo|con frecuencia|seguido)", "change most often"),
        (r"por qu[eé]", "why"),
        (r"base de datos", "database"),
    ),
)

_PT = _Language(
    markers=_set(
        "o os dos das da que se é está estão com para uma mais onde qual quais como quem meus minhas não em na nas"
    ),
    words=_table(
        "fix: conserte consertar conserta arrume arrumar corrija; delete: apague apagar exclua excluir remova remover "
        "deleta; show: mostre mostra-me; explain: explique explica-me; search: procure procurar pesquise pesquisar "
        "encontre; list: liste; stop: pare; start: inicie comece; run: rodar; review: revisar; "
        "check: verifique; sync: sincronize; resume: retome retomar; reset: reinicie; sessions: sessões; "
        "session: sessão; agents: agentes; run: execução; runs: execuções; loop: laço; loops: laços; team: equipe; "
        "teams: equipes; calls: chama chamam; "
        "file: arquivo ficheiro; files: arquivos ficheiros; tests: testes; function: função; functions: funções; "
        "bug: erro; bugs: erros; changes: alterações mudanças; decisions: decisões; where: onde; who: quem; "
        "how: como; report: relatório; old: antigas antigos velhas velhos; nothing: nada; "
        "letter: carta; running: rodando executando; write: escreva escreve; work: trabalho"
    ),
    context=_table(
        "run: rode execute; review: revise; without: sem; the: o os as a; of: do da dos das de; in: em no na; "
        "with: com; for: para; and: e; a: um uma; "
        "is: é está; are: são estão; which: qual quais; my: meu meus minha minhas; no: não"
    ),
    phrases=_phrases(
        (r"onde (?:nós )?(?:paramos|parou|ficou|ficamos|parei)(?: (?:o|a|no|na))?", "where did we leave off on"),
        (
            r"não (?:altere|mude|mexa|modifique|toque) (?:em )?nada|sem (?:alterar|mudar|mexer) (?:em )?nada",
            "don't change anything",
        ),
        (r"sem (?:alterar|mudar|mexer|modificar)", "without changing"),
        (r"o que", "what"),
        (r"por que|porque", "why"),
    ),
)

_FR = _Language(
    markers=_set(
        "le la les des du de un une est sont pour avec dans qui que quoi où quel quelle quels quelles comment "
        "mes ses ce cette ces et pas ne plus sur"
    ),
    words=_table(
        "fix: répare réparer réparez corrige corriger corrigez; delete: supprime supprimer supprimez efface effacer "
        "effacez; show: montre montrer montrez affiche afficher affichez; explain: explique expliquer expliquez; "
        "search: cherche chercher cherchez recherche trouve trouvez; list: liste lister listez; "
        "stop: arrête arrêter arrêtez; start: démarre démarrer lance lancer commence; run: exécute exécuter; "
        "review: relis révise; check: vérifie vérifier vérifiez; sync: synchronise synchroniser; "
        "resume: reprends reprendre reprenez; reset: réinitialise réinitialiser; sessions: séances; "
        "run: exécution; runs: exécutions; loop: boucle; loops: boucles; team: équipe; teams: équipes; file: fichier; "
        "files: fichiers; tests: essais; function: fonction; functions: fonctions; bug: bogue; bugs: bogues; "
        "changes: changements modifications; decisions: décisions; where: où; which: quel quelle quels quelles; "
        "how: comment; why: pourquoi; calls: appelle appellent; uses: utilise utilisent; defined: définie défini; "
        "old: vieilles vieux anciennes anciens; starts: démarre; program: programme; poem: poème; "
        "report: rapport; nothing: rien; write: écris écrire écrivez; work: travail"
    ),
    context=_table(
        "the: le la les l; of: de du des d; in: dans en; with: avec; for: pour; and: et; a: un une; is: est; "
        "are: sont; without: sans; who: qui; what: quoi que qu; my: mon ma mes; on: sur; this: ce cette; these: ces"
    ),
    phrases=_phrases(
        (
            r"où (?:en )?(?:(?:est|était|étions|sommes)(?:-nous|-on)?|on en était|nous en étions)(?: (?:avec|sur|de))?|"
            r"où (?:on s'est|nous nous sommes|s'est) arrêtés?(?: (?:avec|sur))?",
            "where did we leave off on",
        ),
        (r"ne (?:change|modifie|touche) rien|sans rien (?:changer|modifier|toucher)", "don't change anything"),
        (r"sans (?:changer|modifier|toucher)", "without changing"),
        (r"montre-moi|affiche-moi", "show me"),
        (r"explique-moi", "explain"),
        (r"qu'est-ce que|qu'est-ce qui", "what"),
        (r"s'il (?:vous|te) pla[iî]t", "please"),
        (r"base de données", "database"),
    ),
)

_DE = _Language(
    markers=_set(
        "der die das den dem des ist sind ein eine einen und nicht mit von für wer wo welche welcher welches wie "
        "warum mir mich meine mein auf zu gerade bitte wir ich haben beim es"
    ),
    words=_table(
        "fix: repariere reparier behebe beheben korrigiere korrigieren fixe; delete: lösche lösch löschen "
        "entferne entfernen; show: zeig zeige zeigen; explain: erklär erkläre erklären; search: suche "
        "durchsuche finde; list: liste auflisten; stop: stoppe stopp beende halte; start: starte beginne; "
        "run: führe; review: überprüfe; check: prüfe prüf; sync: synchronisiere; resume: fortsetzen; "
        "reset: zurücksetzen; sessions: sitzungen; session: sitzung; agents: agenten; agent: agenten; "
        "runs: läufe; loop: schleife; loops: schleifen; file: datei; files: dateien; "
        "function: funktion; functions: funktionen; "
        "bug: fehler; change: änderung änderungen; decisions: entscheidungen; who: wer; where: wo; "
        "which: welche welcher welches welchen; why: warum; calls: ruft aufruft; uses: benutzt verwendet; "
        "defined: definiert; old: alten alte älteren; risky: riskant riskante; folders: ordner; "
        "running: laufen läuft laufenden laufende; now: jetzt; grandma: oma; nothing: nichts; "
        "without: ohne; please: bitte; "
        "write: schreib schreibe; work: arbeit; report: bericht"
    ),
    context=_table(
        "the: der die das den dem des; is: ist; are: sind; a: ein eine einen; and: und; not: nicht; with: mit; "
        "of: von; for: für; how: wie; me: mir mich; my: meine mein meinen; to: an zu; in: im; on: auf; "
        "now: gerade; what: was; search: such; on: beim"
    ),
    phrases=_phrases(
        (r"wo (?:haben wir|hat (?:der |die |das )?\w+) ((?:\S+ ){0,3}?)aufgehört", r"where did we leave off \1"),
        (r"wo (?:waren|sind|stehen) wir(?: stehen geblieben)?", "where did we leave off on"),
        (r"ändere nichts|nichts ändern|ohne etwas zu ändern", "don't change anything"),
        (r"ohne (?:\w+ )?zu ändern", "without changing"),
        (r"zeig(?:e)? mir", "show me"),
        (r"erklär(?:e)? mir", "explain"),
        (r"führe (\S+) aus", r"run \1"),
        (r"(?:am )?häufigsten geändert|ändern sich (?:am )?(?:häufigsten|oft)", "change most often"),
    ),
)

_IT = _Language(
    markers=_set(
        "il lo la gli le dei delle del della di che è sono per con una un più dove quale quali chi mie miei "
        "questo questa e non"
    ),
    words=_table(
        "fix: correggi ripara aggiusta; delete: cancella elimina rimuovi; show: mostrami; "
        "explain: spiega spiegami spiegare; search: cerca trova; list: elenca; stop: ferma interrompi; "
        "start: avvia inizia; run: esegui; review: rivedi; check: controlla verifica; sync: sincronizza; "
        "resume: riprendi; reset: reimposta; sessions: sessioni; agents: agenti; runs: esecuzioni; "
        "loop: ciclo; loops: cicli; team: squadra; function: funzione; functions: funzioni; "
        "bug: errore; bugs: errori; changes: modifiche; decisions: decisioni; where: dove; why: perché; "
        "calls: chiama chiamano; old: vecchie vecchi; risky: rischioso; nothing: nulla niente; without: senza; "
        "write: scrivi scrivere; work: lavoro; report: rapporto"
    ),
    context=_table(
        "the: il lo la gli le; of: di dei delle del della; with: con; for: per; and: e; a: un una; is: è; "
        "are: sono; which: quale quali; how: come; who: chi; show: mostra; not: non; fix: sistema"
    ),
    phrases=_phrases(
        (
            r"dove (?:eravamo rimasti|ci siamo fermati|si è fermat[oa])(?: (?:con|su|sul|sulla))?",
            "where did we leave off on",
        ),
        (r"non (?:modificare|cambiare|toccare) (?:nulla|niente)", "don't change anything"),
        (r"senza (?:modificare|cambiare|toccare)", "without changing"),
        (r"che cosa|cosa", "what"),
        (r"(?:cambiano|modificano) (?:più )?(?:spesso|di frequente)", "change most often"),
    ),
)

_NL = _Language(
    markers=_set("de het een en van voor met wie waar welke hoe waarom niet zijn mijn deze dit op te ik"),
    words=_table(
        "fix: repareer herstel; delete: verwijder verwijderen wis wissen; show: toon tonen; "
        "explain: uitleggen; search: zoek zoeken vind; stop: stopt; start: begin; check: controleer; "
        "sync: synchroniseer; resume: hervat; sessions: sessies; session: sessie; agents: agenten; "
        "loop: lus; loops: lussen; "
        "files: bestanden; file: bestand; function: functie; functions: functies; bug: fout; bugs: fouten; "
        "changes: wijzigingen; decisions: beslissingen; where: waar; which: welke; why: waarom; "
        "old: oude; report: verslag; nothing: niets; without: zonder; write: schrijf; work: werk"
    ),
    context=_table(
        "the: de het; a: een; and: en; of: van; for: voor; with: met; who: wie; is: is; are: zijn; my: mijn; "
        "this: deze dit; on: op; to: te; not: niet; how: hoe"
    ),
    phrases=_phrases(
        (
            r"waar (?:waren we gebleven|zijn we gebleven|bleven we|is (?:\S+ ){1,3}?gebleven)(?: (?:met|bij))?",
            "where did we leave off on",
        ),
        (r"verander niets|niets (?:veranderen|wijzigen)", "don't change anything"),
        (r"laat (?:me |mij )?zien", "show me"),
        (r"leg (?:me |mij )?uit", "explain"),
        (r"voer (\S+) uit", r"run \1"),
        (r"(?:veranderen|wijzigen) (?:\w+ )?(?:het vaakst|vaak)", "change most often"),
    ),
)

_LANGUAGES = {"es": _ES, "pt": _PT, "fr": _FR, "de": _DE, "it": _IT, "nl": _NL}

# Chinese and Japanese write no spaces: their words are read as substrings, longest first.
_CJK_WORDS = _table(
    "who: 谁 誰; calls: 调用 呼び出し 呼んで; where: 哪里 在哪 どこ; what: 什么 何; which: 哪个 どの; "
    "delete: 删除 削除; show: 显示 显示一下 表示; explain: 解释 説明; fix: 修复 修正 直して; search: 搜索 查找 検索; "
    "sessions: 会话 セッション; agents: 代理 エージェント; tests: 测试 テスト; file: 文件 ファイル; "
    "function: 函数 関数; running: 运行 実行中; change: 修改 変更; check: 检查 確認"
)
_CJK = re.compile("|".join(sorted(map(re.escape, _CJK_WORDS), key=len, reverse=True)))
_CJK_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
_FULL_WIDTH = str.maketrans({"？": "?", "！": "!", "，": ",", "。": ".", "：": ":", "；": ";"})

_WORD = re.compile(r"(?<![\w/.-])([^\W\d_]+(?:'[^\W\d_]+)?)(?![\w/-])")
_EVERYWHERE = {word: english for lang in _LANGUAGES.values() for word, english in lang.words.items()}


def language_of(text: str) -> str | None:
    """The language a task is written in, by its marker words and its own words: two or more, and more than any
    other language has."""
    seen = {w.lower() for w in _WORD.findall(text)}
    counts = sorted(
        ((len(seen & lang.markers) + len(seen & lang.words.keys()), code) for code, lang in _LANGUAGES.items()),
        reverse=True,
    )
    (best, code), (second, _) = counts[0], counts[1]
    if best < 2 or best == second or best < len(seen) * 0.2:
        return None
    return code


# Shorthand people type in any language: "w/o a model", "b/c", "w/ tests".
_SHORTHAND = (
    (re.compile(r"(?<![\w/])w/o(?![\w/])", re.I), "without"),
    (re.compile(r"(?<![\w/])w/(?=\s)", re.I), "with"),
    (re.compile(r"(?<![\w/])b/c(?![\w/])", re.I), "because"),
)


def english(text: str) -> str:
    """`text` with the lexicon's words of other languages read as English ("apague as sessões com mais de 6
    meses": "delete the sessions older than 6 months"). English text comes back as it was."""
    for pattern, word in _SHORTHAND:
        text = pattern.sub(word, text)
    if _CJK_CHAR.search(text):
        text = _CJK.sub(lambda m: f" {_CJK_WORDS[m.group(0)]} ", text.translate(_FULL_WIDTH))
        text = re.sub(r"[了的吗呢吧一下を是は]", " ", text)
    code = language_of(text)
    text = _AGE.sub(_age, text)
    lang = _LANGUAGES.get(code or "")
    if lang is not None:
        for pattern, word in lang.phrases:
            text = pattern.sub(word, text)
    table = {**_EVERYWHERE, **lang.words, **lang.context} if lang is not None else _EVERYWHERE

    def word(m: re.Match[str]) -> str:
        low = m.group(1).lower()
        found = table.get(low)
        if found is None and len(low) >= 7:
            found = next((table[w] for w in _swaps(low) if w in table), None)  # a slip: "luafenden"
        return found if found is not None else m.group(1)

    return " ".join(_WORD.sub(word, text).split())


def _swaps(word: str) -> list[str]:
    """`word` with two neighbouring letters swapped, every way: the commonest typing slip."""
    return [word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1)]


def _age(m: re.Match[str]) -> str:
    count = m.group("count")
    unit = m.group("unit").lower()
    if unit not in _UNITS:
        return m.group(0)
    count = "1" if count.lower() in _ONE else count
    return f" older than {count} {_UNITS[unit]}"
