#!/usr/bin/env bash
# AttnScope — the rules of a scene's kind, of family headers, of core's rooms, of the storage
# enum, of session keys, of views that wait for workers, of state in core and of scenes computed
# outside app/model catch what they are about: each violation planted in a copy of the rules'
# tree fails naming its file, and the new style passes. GPL-3.0-or-later.
# Usage: planted_violations_test.sh REPOSITORY_ROOT
set -u
root=$(cd "${1:?usage: $0 REPOSITORY_ROOT}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# A tree outside any checkout with the rules, a family (gpt2) and its registry.
fresh() {
  rm -rf "$tmp/tree"
  mkdir -p "$tmp/tree/tests/architecture" "$tmp/tree/app/views" "$tmp/tree/core/src/models/gpt2" \
    "$tmp/tree/core/include/attn/models/gpt2" "$tmp/tree/core/include/attn/io"
  cp "$root"/tests/architecture/{check_architecture.sh,repo_files.sh,unity_names.py,core_layers.py,core_state.py} \
    "$tmp/tree/tests/architecture/"
  # An allow-list naming what the tree holds: one per-object mutex, with its reason.
  printf '%s\n' '# planted tree' 'core/src/tokenizers/models.hpp cache_mutex_ one tokenizer'"'"'s own cache, freed with it' \
    >"$tmp/tree/tests/architecture/core_state_allowed.txt"
  mkdir -p "$tmp/tree/core/src/tokenizers"
  printf 'class Bpe {\n    mutable std::mutex cache_mutex_;\n};\n' >"$tmp/tree/core/src/tokenizers/models.hpp"
  printf '#include "attn/models/gpt2/model.hpp"\n' >"$tmp/tree/core/src/models/families.cpp"
  printf '#include "attn/models/model.hpp"\n' >"$tmp/tree/core/include/attn/models/gpt2/model.hpp"
  printf '#include "attn/models/gpt2/model.hpp"\n' >"$tmp/tree/core/src/models/gpt2/model.cpp"
  cat >"$tmp/tree/app/views/good.cpp" <<'CPP'
// The new style: accessors, setters, the storage enum, a folder's own model, a request's path.
void f(Spec& spec, const Result& r, const Request& request) {
    if (spec.is_model() && spec.model->model) g(spec.data->components, r.has_scores);
    if (!spec.is_synthetic() || r.storage == attn::Storage::Streamed) return;
    spec.set_loaded(std::move(data));
    g(request.file.isEmpty() ? request.model : request.file, !request.model.isEmpty());
    const bool streamedHead = r.heads[0].streamed();
    // Scenes and runs through app/model's cache, inside a scheduler job.
    const auto sceneOf = LayerCache::of(scene)->sceneFor(spec, true);
    const auto run = runs->run(spec, &progress);
    const auto kept = runs->scene(spec, &progress, attn::storage_for(spec));
}
CPP
}

# planted FILE LINE WHAT: the line in FILE must fail the rules, and the message name FILE.
planted() {
  fresh
  mkdir -p "$(dirname "$tmp/tree/$1")"
  printf '%s\n' "$2" >"$tmp/tree/$1"
  if out=$(cd "$tmp" && bash "$tmp/tree/tests/architecture/check_architecture.sh" "$tmp/tree" 2>&1); then
    fail "$3 passes the rules: $2"
  elif ! grep -q "^$1:" <<<"$out"; then
    fail "$3 is refused without naming $1: $out"
  fi
}

fresh
if ! out=$(cd "$tmp" && bash "$tmp/tree/tests/architecture/check_architecture.sh" "$tmp/tree" 2>&1); then
  fail "the new style fails the rules: $out"
fi

planted app/views/a.cpp '    if (spec.data) return;' "a null test of spec.data"
planted app/views/a.cpp '    setVisible(!spec.model);' "a negated spec.model"
planted app/views/a.cpp '    const bool b = bool(window_->scene()->spec().model);' "a bool cast of a spec's model"
planted app/views/a.cpp '    QString n = s.data || s.model ? QString() : t;' "s.data || s.model"
planted app/views/a.cpp '    const int h = spec.model ? 12 : 4;' "spec.model as a condition"
planted app/views/a.cpp '    if (x && input.spec.data) y();' "a spec's data after &&"
planted app/views/a.cpp '    if (spec.model != nullptr) y();' "spec.model compared with nullptr"
planted app/views/a.cpp '    spec.data.reset();' "a spec's data reset by hand"
planted app/views/a.cpp '    out.spec.model = folder;' "a spec's model assigned by hand"
planted app/views/a.cpp '#include "attn/models/gpt2/model.hpp"' "a family header in app/"
planted core/src/scene/scene.cpp '#include "attn/models/gpt2/model.hpp"' "a family header in core's scene"
planted core/src/models/gpt2/run.cpp '#include "attn/scene/scene.hpp"' "a family including the scene"
planted core/src/attention/mask.cpp '#include "attn/scene/scene.hpp"' "attention including the scene (a room above)"
planted core/src/util/random.cpp '#include "../attention/detail.hpp"' "util including attention's private header"
planted core/include/attn/models/llama/model.hpp '#include "attn/models/gpt2/model.hpp"' "a family including another family"
planted core/src/stray.cpp '#include "attn/util/error.hpp"' "a core file outside every room"
planted app/views/a.cpp '    if (r.weights_only) return;' "the weights_only flag"
planted app/views/a.cpp '    if (!result->stages_kept) return;' "the stages_kept flag"
planted tests/core/a_test.cpp '    ASSERT_TRUE(r.streamed);' "the streamed flag"
planted app/io/session_state.cpp '    state[QStringLiteral("tab")] = tabs->tabText(tabs->currentIndex());' "a tab title as a session key"
planted app/io/session_state.cpp '    lenses[tr("Theory")] = settings;' "a translated session key"
planted app/lenses/a_lens.cpp '    n_ = addSpin(tr("tokens n"), 4, 512, 64);' "a lens control keyed by its label"
planted app/views/a.cpp '    QtConcurrent::blockingMap(jobs, prepare);' "a view waiting for blockingMap"
planted app/views/a.cpp '    const auto r = QtConcurrent::blockingMapped(cells, f);' "a view waiting for blockingMapped"
planted core/src/scene/model_scene.cpp '    std::mutex mutex_;' "a mutex member in core (the run cache)"
planted core/src/scene/model_scene.cpp '    static RunCache c;' "a function-local static cache in core"
planted core/src/util/cache.cpp 'std::map<int, Run> g_runs;' "a namespace-scope cache in core"
planted core/src/util/cache.hpp 'inline std::shared_mutex g_lock;' "a namespace-scope shared_mutex in core"
planted core/src/attention/kernel.cpp '    thread_local std::vector<float> last_row;' "a thread_local in core"
planted tests/architecture/core_state_allowed.txt 'core/src/util/x.cpp g_x' "an allow-list entry without its reason"
planted app/lenses/a_lens.cpp '    const auto r = attn::compute_scene(spec);' "a lens computing the scene"
planted app/views/a.cpp '    const auto run = attn::model::scene_run(spec, &progress);' "a view running the model"
planted app/views/a.cpp '    auto r = attn::model::model_scene(spec, progress);' "a view computing a model scene"
planted app/widgets/a.cpp '    r = attn::recompute_scene(base, before, spec, p, s);' "a widget recomputing a scene"
planted app/lenses/b_lens.cpp '    const Run run = attn::model::run(*folder.model, ids, controls);' "a lens running a model"

[ "$fails" -eq 0 ] && echo "planted violations: every one refused by file name, the new style passes"
[ "$fails" -eq 0 ]
