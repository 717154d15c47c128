// AttnScope — `attnscope merge`: the shards of one batch run joined into the run's result.
// GPL-3.0-or-later.
#include <QCommandLineParser>
#include <QFile>
#include <algorithm>
#include <map>
#include <new>

#include "attn/io/numpy/npy.hpp"
#include "attn/util/error.hpp"
#include "cli/batch_command.hpp"
#include "cli/batch_record.hpp"
#include "cli/cli_request.hpp"
#include "cli/cli_tr.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output_check.hpp"
#include "cli/scene_input.hpp"
#include "model/error_text.hpp"

namespace cli {
namespace {

/// One shard as read: its header and entries.
struct Shard {
    QString file;
    batch::Header header;
    batch::Analysis analysis = batch::Analysis::Patch;
    int layers = 0, heads = 0;
    batch::AttributeSettings attribute;  ///< an attribute run's, read from its options
    std::vector<batch::Entry> entries;
};

std::string singleText(const attn::io::NpzMembers& m, const char* key, const std::string& name) {
    const std::vector<std::string> v = batch::textArray(m, key, name);
    if (v.size() != 1) throw attn::FormatError(name + ": " + key + " is not one text");
    return v[0];
}

Shard readShard(const QString& file) {
    Shard s;
    s.file = file;
    const std::string name = QFile::encodeName(file).toStdString();
    const attn::io::NpzMembers m = attn::io::read_npz(name);
    batch::Header& h = s.header;
    h.analysis = singleText(m, "analysis", name);
    h.model = singleText(m, "model", name);
    h.dataset = singleText(m, "dataset", name);
    h.options = singleText(m, "options", name);
    const std::vector<std::string> hashes = batch::textArray(m, "hashes", name);
    const std::vector<std::int64_t> shard = batch::int64Array(m, "shard", name);
    const auto a = batch::analysisNamed(h.analysis);
    if (hashes.size() != 3 || shard.size() != 2 || shard[1] < 1 || shard[0] < 0 ||
        shard[0] >= shard[1] || !a)
        throw attn::FormatError(name + ": its analysis, hashes or shard are not a batch result's");
    std::copy(hashes.begin(), hashes.end(), h.hashes.begin());
    h.shardK = shard[0], h.shardN = shard[1];
    s.analysis = *a;
    if (s.analysis == batch::Analysis::Attribute) {
        const auto settings = batch::attributeSettingsOf(h.options);
        if (!settings)
            throw attn::FormatError(name + ": its options (" + h.options +
                                    ") are not an attribute run's");
        s.attribute = *settings;
    }
    const char* shapeKey = batch::shapeKey(s.analysis);
    for (const auto& [key, bytes] : m)
        if (shapeKey && key == shapeKey) {
            const attn::io::NpyHeader nh = attn::io::parse_npy_header(bytes, name + ": " + key);
            if (nh.shape.size() < 3 || nh.shape[1] > 100000 || nh.shape[2] > 100000)
                throw attn::FormatError(name + ": " + key + " is not [E, L, H]");
            s.layers = int(nh.shape[1]), s.heads = int(nh.shape[2]);
        }
    s.entries =
        batch::entriesOf(m, batch::schema(s.analysis, s.layers, s.heads, s.attribute), name);
    return s;
}

int mergeCommand(QStringList args, QString* error) {
    args.removeAt(1);
    QCommandLineParser p;
    p.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    p.addOption(
        {{QStringLiteral("o"), QStringLiteral("output")}, tr("output"), QStringLiteral("OUT")});
    p.addOption({QStringLiteral("force"), tr("replace a read-only output file")});
    if (!p.parse(args)) {
        *error = p.errorText() + tr(" (merge takes SHARD.npz… -o OUT.npz and --force)");
        return kExitUsage;
    }
    const QStringList files = p.positionalArguments();
    const QString output = p.value(QStringLiteral("output"));
    if (files.isEmpty() || output.isEmpty()) {
        *error =
            tr("merge needs the shards and -o: attnscope merge OUT_0.npz OUT_1.npz … -o "
               "OUT.npz");
        return kExitUsage;
    }
    if (!output.endsWith(QLatin1StringView(".npz"), Qt::CaseInsensitive)) {
        *error = tr("%1: merge writes .npz").arg(output);
        return kExitUsage;
    }
    for (const QString& f : files) {
        Request asRequest;
        asRequest.file = f;  // a shard is never written over
        asRequest.output = output;
        asRequest.force = p.isSet(QStringLiteral("force"));
        if (const int code = checkOutputFile(asRequest, SceneInput{}, error); code != kExitOk)
            return code;
    }
    std::vector<Shard> shards;
    for (const QString& f : files) {
        try {
            shards.push_back(readShard(f));
        } catch (const std::bad_alloc&) {
            *error = tr("%1: not enough memory to read the shard").arg(f);
            return kExitResource;
        } catch (const std::exception& e) {
            *error = errorText(e, f);
            return kExitInput;
        }
    }
    const Shard& first = shards[0];
    std::map<std::int64_t, QString> given;
    for (const Shard& s : shards) {
        const batch::Header &a = first.header, &b = s.header;
        const auto differs = [&](const QString& what, const std::string& x, const std::string& y) {
            *error = tr("%1 and %2 are shards of different runs: %3 differ (%4, %5)")
                         .arg(first.file, s.file, what, QString::fromStdString(x),
                              QString::fromStdString(y));
            return kExitUsage;
        };
        if (a.analysis != b.analysis) return differs(tr("the analyses"), a.analysis, b.analysis);
        if (a.options != b.options) return differs(tr("the options"), a.options, b.options);
        if (a.hashes[0] != b.hashes[0]) return differs(tr("the models"), a.model, b.model);
        if (a.hashes[1] != b.hashes[1]) return differs(tr("the datasets"), a.dataset, b.dataset);
        if (a.hashes[2] != b.hashes[2]) return differs(tr("the options"), a.hashes[2], b.hashes[2]);
        if (a.shardN != b.shardN)
            return differs(tr("the shard counts"), std::to_string(a.shardN),
                           std::to_string(b.shardN));
        if (s.layers != first.layers || s.heads != first.heads)
            return differs(tr("the layers × heads"), std::to_string(first.layers * first.heads),
                           std::to_string(s.layers * s.heads));
        if (const auto it = given.find(b.shardK); it != given.end()) {
            *error = tr("shard %1/%2 is given twice (%3 and %4)")
                         .arg(b.shardK)
                         .arg(b.shardN)
                         .arg(it->second, s.file);
            return kExitUsage;
        }
        given[b.shardK] = s.file;
    }
    for (std::int64_t k = 0; k < first.header.shardN; ++k)
        if (!given.contains(k)) {
            *error = tr("shard %1/%2 is missing (given: %3 of %2)")
                         .arg(k)
                         .arg(first.header.shardN)
                         .arg(given.size());
            return kExitUsage;
        }
    std::vector<batch::Entry> entries;
    std::map<std::int64_t, QString> lineOf;
    for (Shard& s : shards)
        for (batch::Entry& e : s.entries) {
            if (const auto it = lineOf.find(e.line); it != lineOf.end()) {
                *error = tr("line %1 of the dataset is in both %2 and %3")
                             .arg(e.line)
                             .arg(it->second, s.file);
                return kExitUsage;
            }
            lineOf[e.line] = s.file;
            entries.push_back(std::move(e));
        }
    std::stable_sort(entries.begin(), entries.end(),
                     [](const batch::Entry& x, const batch::Entry& y) { return x.line < y.line; });
    batch::Header header = first.header;
    header.shardK = 0, header.shardN = 1;
    try {
        batch::writeReproducible(QFile::encodeName(output).toStdString(),
                                 batch::assemble(header, first.analysis,
                                                 batch::schema(first.analysis, first.layers,
                                                               first.heads, first.attribute),
                                                 entries));
    } catch (const std::bad_alloc&) {
        *error = tr("%1: not enough memory to write the result").arg(output);
        return kExitResource;
    } catch (const std::exception& x) {
        *error = errorText(x, output);
        return kExitOutput;
    }
    return kExitOk;
}

}  // namespace

int runMerge(const QStringList& arguments, QTextStream& err) {
    QString error;
    const int code = mergeCommand(arguments, &error);
    if (code != kExitOk) {
        err << "attnscope: " << error << "\n";
        err.flush();
    }
    return code;
}

}  // namespace cli
