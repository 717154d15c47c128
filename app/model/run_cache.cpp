// AttnScope — the window's kept model runs. GPL-3.0-or-later.
#include "model/run_cache.hpp"

#include <algorithm>
#include <chrono>

#include "attn/util/error.hpp"

bool RunCache::Key::sameRunOf(const Key& o) const {
    return address == o.address && !folder.expired() && controls == o.controls;
}

std::shared_ptr<const attn::model::Run> RunCache::lookup(const Key& key, bool* exact) const {
    std::shared_ptr<const attn::model::Run> best;
    std::size_t bestLength = 0;
    for (const auto& [k, run] : entries_) {
        if (!k.sameRunOf(key)) continue;
        if (k.ids == key.ids) {
            *exact = true;
            return run;
        }
        const auto end = std::min(k.ids.size(), key.ids.size());
        std::size_t i = 0;
        while (i < end && k.ids[i] == key.ids[i])
            ++i;
        if (i > bestLength) bestLength = i, best = run;
    }
    *exact = false;
    return best;
}

bool RunCache::computing(const Key& key) const {
    return std::any_of(computing_.begin(), computing_.end(),
                       [&](const Key& k) { return k.sameRunOf(key) && k.ids == key.ids; });
}

void RunCache::finish(const Key& key, std::shared_ptr<const attn::model::Run> run) {
    std::deque<Entry> gone;  // freed after the lock, not under it
    {
        const std::lock_guard lock(mutex_);
        const auto mine = std::find_if(computing_.begin(), computing_.end(), [&](const Key& k) {
            return k.address == key.address && k.ids == key.ids && k.controls == key.controls;
        });
        if (mine != computing_.end()) computing_.erase(mine);
        if (run) {
            ++computed_;
            entries_.emplace_front(key, std::move(run));
            // Two runs: the shown one and the one before it (undo, or a control toggled back).
            while (entries_.size() > 2) {
                gone.push_back(std::move(entries_.back()));
                entries_.pop_back();
            }
        }
    }
    computedOne_.notify_all();
}

std::shared_ptr<const attn::model::Run> RunCache::run(const attn::SceneSpec& spec,
                                                      attn::Progress* progress) {
    Key key;
    key.ids = attn::model::checked_run_ids(spec);  // throws for a scene without a model
    key.folder = spec.model;
    key.address = spec.model.get();
    key.controls = attn::model::run_controls(spec);
    std::shared_ptr<const attn::model::Run> prefix;
    {
        std::unique_lock lock(mutex_);
        for (;;) {
            bool exact = false;
            prefix = lookup(key, &exact);
            if (exact) return prefix;
            if (!computing(key)) break;
            // Another reader computes this very run: wait for it (a cancelled wait throws; a
            // failed or cancelled computation leaves it to this thread).
            computedOne_.wait_for(lock, std::chrono::milliseconds(20));
            if (progress && progress->cancelled()) throw attn::Cancelled();
        }
        computing_.push_back(key);
    }
    std::shared_ptr<const attn::model::Run> fresh;
    try {
        // Retyping the end of a sentence: the unchanged start's hidden states are reused.
        fresh = attn::model::compute_run(spec, key.ids, progress, prefix.get());
    } catch (...) {
        finish(key, nullptr);
        throw;
    }
    finish(key, fresh);
    return fresh;
}

attn::SceneResult RunCache::scene(const attn::SceneSpec& spec, attn::Progress* progress,
                                  attn::Storage storage) {
    return attn::model::run_scene(spec, run(spec, progress), storage);
}

void RunCache::clear() {
    std::deque<Entry> gone;
    {
        const std::lock_guard lock(mutex_);
        gone.swap(entries_);
    }  // the runs (possibly gigabytes) are freed here, outside the lock
}

int RunCache::computed() const {
    const std::lock_guard lock(mutex_);
    return computed_;
}
