// AttnScope — the command line's interventions. GPL-3.0-or-later.
#include "cli/intervention_options.hpp"

#include <QRegularExpression>
#include <algorithm>
#include <limits>

#include "cli/cli_request.hpp"
#include "cli/cli_tr.hpp"
#include "cli/option_values.hpp"
#include "model/seq2seq_run.hpp"

namespace cli {
namespace {

std::optional<int> smallIndex(const QString& text) {
    const std::optional<qulonglong> v = decimalUnsigned(text);
    if (!v || *v > qulonglong(std::numeric_limits<int>::max())) return std::nullopt;
    return int(*v);
}

template <class T>
void sortUnique(std::vector<T>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
}

}  // namespace

void addInterventionOptions(QCommandLineParser& p) {
    p.addOption({QStringLiteral("ablate"), tr("ablated heads"), QStringLiteral("L.H,...")});
    p.addOption({QStringLiteral("ablate-mode"), tr("zero or mean"), QStringLiteral("MODE")});
    p.addOption({QStringLiteral("knockout"), tr("removed edges"), QStringLiteral("L.H:Q>K,...")});
    p.addOption({QStringLiteral("logit-lens"), tr("add the logit lens")});
    p.addOption(
        {QStringLiteral("attribute"), tr("direct logit attribution"), QStringLiteral("ID")});
    p.addOption({QStringLiteral("induction"), tr("census of the induction test")});
    p.addOption({QStringLiteral("corrupt"), tr("corrupted prompt"), QStringLiteral("TEXT")});
    p.addOption({QStringLiteral("answer"), tr("clean answer token"), QStringLiteral("ID")});
    p.addOption({QStringLiteral("wrong"), tr("corrupted answer token"), QStringLiteral("ID")});
}

std::optional<std::vector<attn::model::Site>> parseHeads(const QString& text) {
    static const QRegularExpression re(QStringLiteral("^(\\d+)\\.(\\d+)$"));
    std::vector<attn::model::Site> out;
    for (const QString& item : text.split(QLatin1Char(','))) {
        const auto m = re.match(item.trimmed());
        if (!m.hasMatch()) return std::nullopt;
        const auto l = smallIndex(m.captured(1)), h = smallIndex(m.captured(2));
        if (!l || !h) return std::nullopt;
        out.push_back({attn::model::kSingleStack, *l, *h});
    }
    sortUnique(out);
    return out;
}

std::optional<std::vector<attn::model::Knockout>> parseKnockouts(const QString& text) {
    static const QRegularExpression re(QStringLiteral("^(\\d+)\\.(\\d+):(\\d+|\\*)>(\\d+)$"));
    std::vector<attn::model::Knockout> out;
    for (const QString& item : text.split(QLatin1Char(','))) {
        const auto m = re.match(item.trimmed());
        if (!m.hasMatch()) return std::nullopt;
        const auto l = smallIndex(m.captured(1)), h = smallIndex(m.captured(2)),
                   k = smallIndex(m.captured(4));
        const bool every = m.captured(3) == QLatin1StringView("*");
        const auto q = every ? std::optional<int>(-1) : smallIndex(m.captured(3));
        if (!l || !h || !k || !q) return std::nullopt;
        out.push_back({{attn::model::kSingleStack, *l, *h}, *q, *k});
    }
    sortUnique(out);
    return out;
}

QString parseInterventionOptions(const QCommandLineParser& p, Request& r) {
    const auto given = [&](const char* name) { return p.isSet(QString::fromLatin1(name)); };
    for (const char* name :
         {"ablate", "ablate-mode", "knockout", "logit-lens", "attribute", "induction"})
        if (given(name) && r.model.isEmpty())
            return tr("--%1 applies to a --model run").arg(QLatin1StringView(name));
    const bool compute = r.command == Request::Command::Compute;
    const bool render = r.command == Request::Command::Render;
    if (given("logit-lens") && !compute) return tr("--logit-lens belongs to compute");
    if (given("attribute") && !compute && !(render && r.view == QLatin1StringView("attribution")))
        return tr("--attribute belongs to compute and render --view attribution");
    for (const char* name : {"corrupt", "answer", "wrong"})
        if (given(name) && !(render && r.view == QLatin1StringView("patching")))
            return tr("--%1 belongs to render --view patching (and attnscope patch)")
                .arg(QLatin1StringView(name));
    if (render && r.view == QLatin1StringView("patching")) {
        if (!given("corrupt") || !given("answer") || !given("wrong"))
            return tr("render --view patching needs --corrupt TEXT, --answer ID and --wrong ID");
        r.corrupt = p.value(QStringLiteral("corrupt"));
        for (const char* name : {"answer", "wrong"}) {
            const auto id = smallIndex(p.value(QString::fromLatin1(name)));
            if (!id)
                return tr("--%1: '%2' is not a token id")
                    .arg(QLatin1StringView(name), p.value(QString::fromLatin1(name)));
            (name[0] == 'a' ? r.answer : r.wrong) = *id;
        }
    }
    if (given("target") && r.command != Request::Command::Attribute) {  // (attribute: a token id)
        if (!render || r.model.isEmpty())
            return tr(
                "--target belongs to render and compute --model DIR of an encoder–decoder "
                "(a sentence), and to attribute (a token id)");
        r.target = p.value(QStringLiteral("target"));
        if (r.target.isEmpty()) return tr("--target: the target sentence is empty");
    }
    if (given("induction") && r.command != Request::Command::Census)
        return tr("--induction belongs to census");
    if (given("induction") && given("text"))
        return tr(
            "--induction runs on seeded random tokens repeated twice, not on --text "
            "(drop --text; without --induction, census runs on the text)");
    if (given("ablate")) {
        const QString v = p.value(QStringLiteral("ablate"));
        const auto heads = parseHeads(v);
        // An encoder–decoder's heads are PART.L.H (openModel refuses them for a decoder-only).
        if (!heads && !parseSeq2SeqHeads(v, &r.seq2seq.ablate).isEmpty())
            return tr("--ablate: '%1' is not a list of heads such as 0.3,5.1 (or cross.0.3 of "
                      "an encoder–decoder)")
                .arg(v);
        if (heads) r.interventions.ablated = *heads;
    }
    if (given("ablate-mode")) {
        const QString v = p.value(QStringLiteral("ablate-mode")).toLower();
        if (!given("ablate")) return tr("--ablate-mode applies to --ablate");
        if (v == QLatin1StringView("mean"))
            r.interventions.ablation = r.seq2seq.ablation = attn::model::AblationMode::Mean;
        else if (v != QLatin1StringView("zero"))
            return tr("--ablate-mode: '%1' is not zero or mean").arg(v);
    }
    if (given("knockout")) {
        const QString v = p.value(QStringLiteral("knockout"));
        const auto k = parseKnockouts(v);
        if (!k && !parseSeq2SeqKnockouts(v, &r.seq2seq.knockouts).isEmpty())
            return tr("--knockout: '%1' is not a list of edges such as 1.0:5>2 or 1.0:*>2 (or "
                      "cross.1.0:5>2 of an encoder–decoder)")
                .arg(v);
        if (k) r.interventions.knockouts = *k;
    }
    r.logitLens = given("logit-lens");
    if (given("attribute")) {
        const auto id = smallIndex(p.value(QStringLiteral("attribute")));
        if (!id)
            return tr("--attribute: '%1' is not a token id")
                .arg(p.value(QStringLiteral("attribute")));
        r.attribute = *id;
    }
    r.induction = given("induction");
    return {};
}

QString knockoutOutside(const std::vector<attn::model::Knockout>& knockouts, std::size_t tokens,
                        const QString& what) {
    for (const attn::model::Knockout& k : knockouts) {
        const bool query = k.query >= 0 && std::size_t(k.query) >= tokens;
        if (!query && std::size_t(k.key) < tokens) continue;
        const QString edge = QStringLiteral("%1.%2:%3>%4")
                                 .arg(k.site.layer)
                                 .arg(k.site.head)
                                 .arg(k.query < 0 ? QStringLiteral("*") : QString::number(k.query))
                                 .arg(k.key);
        return tr("--knockout %1: %2 %3 is past the %4 tokens of %5 (positions 0…%6), so it "
                  "would remove nothing")
            .arg(edge, query ? tr("query") : tr("key"))
            .arg(query ? k.query : k.key)
            .arg(tokens)
            .arg(what)
            .arg(qlonglong(tokens) - 1);
    }
    return {};
}

QString interventionOptionsHelp() {
    return tr(
        "interventions (--model runs; docs/interventions.md):\n"
        "  --ablate L.H[,L.H…]      heads (from 0) whose output is replaced inside the run\n"
        "  --ablate-mode zero|mean  by zero (default) or its mean over the positions\n"
        "  --knockout L.H:Q>K[,…]   query Q ('*': every query) of head L.H no longer sees\n"
        "                           key K; the row is renormalised\n"
        "  --logit-lens             compute adds lens_logits [L+1,vocab] at the last\n"
        "                           position (row L equals logits)\n"
        "  --attribute ID           compute adds the direct logit attribution of token ID\n"
        "                           at the last position: head_attribution [L,H],\n"
        "                           mlp_attribution [L], embed_attribution,\n"
        "                           bias_attribution (they sum to its logit)\n"
        "  --induction              census of the induction test: seeded random tokens\n"
        "                           repeated twice instead of --text\n"
        "  render --view logit-lens|attribution|patching: the Interventions tab's views\n"
        "                           (attribution: [--attribute ID]; patching: --corrupt\n"
        "                           TEXT --answer ID --wrong ID)\n");
}

}  // namespace cli
