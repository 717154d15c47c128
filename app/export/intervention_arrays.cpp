// AttnScope — the Interventions tab's numbers as named NumPy arrays. GPL-3.0-or-later.
#include "export/intervention_arrays.hpp"

#include <QFile>
#include <QFileInfo>
#include <QTabWidget>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "attn/io/numpy/npy.hpp"
#include "export/export_tr.hpp"
#include "views/attribution_view.hpp"
#include "views/cell_map.hpp"
#include "views/interventions_tab.hpp"
#include "views/logit_lens_view.hpp"
#include "views/patching_view.hpp"

namespace exporting {
namespace {

using attn::io::NpzMembers;

std::vector<std::byte> matrix(const attn::Matrix& m) {
    const std::uint64_t shape[] = {std::uint64_t(m.rows()), std::uint64_t(m.cols())};
    return attn::io::npy_bytes(std::span<const float>(m.data(), std::size_t(m.size())), shape);
}

std::vector<std::byte> floats(const std::vector<float>& v) {
    const std::uint64_t shape[] = {v.size()};
    return attn::io::npy_bytes(v, shape);
}

std::vector<std::byte> scalar(double v) {
    return floats({float(v)});
}

std::vector<std::byte> ids(const std::vector<std::int32_t>& v) {
    return attn::io::npy_i4_bytes(v);
}

std::vector<std::byte> strings(const QStringList& list) {
    std::vector<std::string> out;
    for (const QString& s : list)
        out.push_back(s.toStdString());
    return attn::io::npy_string_bytes(out);
}

void lensArrays(const LogitLensView& lens, NpzMembers* a) {
    const attn::interv::LensTable& t = lens.table();
    if (t.cells.empty()) return;
    const auto L = std::uint64_t(t.layers), n = std::uint64_t(t.positions);
    const auto k = std::uint64_t(attn::interv::kLensTop);
    std::vector<float> top5p, topP;
    std::vector<std::int32_t> top5i, topI;
    for (const attn::interv::LensCell& c : t.cells) {
        topP.push_back(c.probabilities[0]);
        topI.push_back(c.ids[0]);
        top5p.insert(top5p.end(), c.probabilities.begin(), c.probabilities.end());
        top5i.insert(top5i.end(), c.ids.begin(), c.ids.end());
    }
    std::vector<std::string> names;
    for (std::size_t i = 0; i < t.cells.size(); ++i)
        names.push_back(lens.topNames().value(int(i * k)).toStdString());
    const std::uint64_t cells[] = {L, n}, top[] = {L, n, k};
    a->push_back({"probabilities", attn::io::npy_bytes(topP, cells)});
    a->push_back({"ids", attn::io::npy_i4_bytes(topI, cells)});
    a->push_back({"top_tokens", attn::io::npy_string_bytes(names, cells)});
    a->push_back({"top5_probabilities", attn::io::npy_bytes(top5p, top)});
    a->push_back({"top5_ids", attn::io::npy_i4_bytes(top5i, top)});
    a->push_back({"rows", strings(lens.map()->rowLabels())});
    a->push_back({"tokens", strings(lens.tokens())});
    a->push_back({"token_ids", ids(lens.tokenIds())});
}

void attributionArrays(const AttributionView& view, NpzMembers* a) {
    const attn::interv::Attribution& r = view.attribution();
    if (r.heads.size() == 0) return;
    a->push_back({"head_attribution", matrix(r.heads)});
    a->push_back({"mlp_attribution", floats({r.mlp.data(), r.mlp.data() + r.mlp.size()})});
    a->push_back({"embed_attribution", scalar(r.embed)});
    a->push_back({"attn_bias_attribution",
                  floats({r.attn_bias.data(), r.attn_bias.data() + r.attn_bias.size()})});
    a->push_back({"norm_bias_attribution", scalar(r.norm_bias)});
    a->push_back({"logit", scalar(r.logit)});
    a->push_back({"token_id", ids({r.token})});
    a->push_back({"token", strings({view.tokenText()})});
    a->push_back({"position", ids({std::int32_t(r.position)})});
    a->push_back({"tokens", strings(view.tokens())});
    a->push_back({"token_ids", ids(view.tokenIds())});
}

void patchingArrays(const PatchingView& view, NpzMembers* a) {
    const attn::interv::PatchResult& r = view.result();
    if (r.heads.size() == 0) return;
    const attn::interv::PatchSpec& s = view.patchSpec();
    // The names `attnscope patch` writes, and what they were computed from.
    a->push_back({"head_patch", matrix(r.heads)});
    a->push_back({"resid_patch", matrix(r.resid)});
    a->push_back({"resid_rows", strings(view.residMap()->rowLabels())});
    a->push_back({"clean_ids", ids(s.clean)});
    a->push_back({"corrupt_ids", ids(s.corrupt)});
    a->push_back({"clean_tokens", strings(view.inputs().tokens)});
    a->push_back({"corrupt_tokens", strings(view.inputs().corruptTokens)});
    a->push_back({"clean_text", strings({view.inputs().clean})});
    a->push_back({"corrupt_text", strings({view.inputs().corrupt})});
    a->push_back({"answer_id", ids({s.answer})});
    a->push_back({"wrong_id", ids({s.wrong})});
    a->push_back({"answer", strings({view.inputs().answerText})});
    a->push_back({"wrong", strings({view.inputs().wrongText})});
    a->push_back({"clean_diff", scalar(r.clean_diff)});
    a->push_back({"corrupt_diff", scalar(r.corrupt_diff)});
    a->push_back({"logit_scale", scalar(r.logit_scale)});
    a->push_back({"unstable", ids({r.unstable() ? 1 : 0})});
}

}  // namespace

bool interventionArraysOfView(QWidget* view, NpzMembers* arrays) {
    if (auto* tab = qobject_cast<InterventionsTab*>(view)) view = tab->pages()->currentWidget();
    arrays->clear();
    if (auto* lens = qobject_cast<LogitLensView*>(view)) {
        lensArrays(*lens, arrays);
        return true;
    }
    if (auto* a = qobject_cast<AttributionView*>(view)) {
        attributionArrays(*a, arrays);
        return true;
    }
    if (auto* p = qobject_cast<PatchingView*>(view)) {
        patchingArrays(*p, arrays);
        return true;
    }
    return false;
}

QString writeInterventionArrays(QWidget* view, const QString& path) {
    NpzMembers arrays;
    if (!interventionArraysOfView(view, &arrays))
        return tr("%1: .npz holds the Interventions tab's numbers; this view's are written as "
                  ".npy or .csv")
            .arg(QFileInfo(path).fileName());
    if (arrays.empty())
        return tr("%1: there are no numbers to write (nothing computed yet)")
            .arg(QFileInfo(path).fileName());
    try {
        attn::io::write_npz(QFile::encodeName(path).toStdString(), arrays);
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

}  // namespace exporting
