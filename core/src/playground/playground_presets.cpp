// AttnScope core — presets of the 2-D playground. GPL-3.0-or-later.
#include <cmath>

#include "attn/playground/playground.hpp"
#include "attn/util/error.hpp"

namespace attn {

namespace {

using P = Eigen::Vector2d;

PlaygroundState worked_example() {
    PlaygroundState s;
    const double a = std::pow(2.0, 0.25), b = std::pow(2.0, -0.75);
    s.queries = {P(a, 0)};
    s.keys = {P(a, 0), P(0, a), P(b, b)};
    s.values = {P(10, 0), P(20, 0), P(30, 0)};
    s.as_if_dk = 4;
    return s;
}

PlaygroundState two_clusters() {
    PlaygroundState s;
    s.queries = {P(1.6, 1.2), P(-1.4, -1.1), P(0.1, 0.2)};
    s.keys = {P(1.5, 1.0), P(1.9, 1.5), P(1.2, 1.7), P(-1.6, -1.2), P(-1.1, -1.7), P(-1.9, -0.9)};
    s.values = {P(2.0, 2.4), P(2.6, 2.0), P(2.2, 1.6), P(-2.2, 0.6), P(-1.8, 1.2), P(-2.6, 1.0)};
    s.score = ScoreKind::Rbf;
    s.sigma = 0.8;
    return s;
}

PlaygroundState one_dominant_key() {
    PlaygroundState s;
    s.queries = {P(1.0, 0.6)};
    s.keys = {P(3.0, 1.8), P(0.4, -0.6), P(-0.6, 0.5), P(-0.3, -0.8), P(0.2, 0.9)};
    s.values = {P(2.5, 2.0), P(-1.5, 1.0), P(-2.0, -1.0), P(0.5, -2.0), P(1.5, -0.5)};
    return s;
}

PlaygroundState saturation() {
    PlaygroundState s;
    s.queries = {P(1.2, 0.9), P(-0.6, 1.0)};
    s.keys = {P(1.2, 0.4), P(0.5, 1.0), P(-0.9, 0.8), P(0.1, -1.0), P(-1.0, -0.4)};
    s.values = {P(2.0, 1.0), P(1.0, 2.0), P(-2.0, 1.5), P(0.0, -2.0), P(-1.5, -1.0)};
    s.scale = false;
    s.as_if_dk = 1024;
    return s;
}

PlaygroundState hull_corners() {
    PlaygroundState s;
    const double pi = std::acos(-1.0);
    for (int j = 0; j < 5; ++j) {
        const double t = pi / 2 + 2 * pi * j / 5;
        s.keys.emplace_back(1.5 * std::cos(t), 1.5 * std::sin(t));
        s.values.emplace_back(2.4 * std::cos(t), 2.4 * std::sin(t));
    }
    // Interior values do not change the hull: the outputs still cannot leave it.
    s.keys.emplace_back(0.2, -0.1);
    s.values.emplace_back(0.3, 0.4);
    s.queries = {P(0.0, 2.0), P(1.8, -1.2), P(-0.4, 0.3)};
    s.sigma = 0.7;
    s.temperature = 0.5;
    return s;
}

}  // namespace

std::vector<PlaygroundPreset> playground_presets() {
    return {PlaygroundPreset::WorkedExample, PlaygroundPreset::TwoClusters,
            PlaygroundPreset::OneDominantKey, PlaygroundPreset::Saturation,
            PlaygroundPreset::HullCorners};
}

std::string_view playground_preset_name(PlaygroundPreset preset) {
    switch (preset) {
        case PlaygroundPreset::WorkedExample:
            return "Worked example";
        case PlaygroundPreset::TwoClusters:
            return "Two clusters";
        case PlaygroundPreset::OneDominantKey:
            return "One dominant key";
        case PlaygroundPreset::Saturation:
            return "Saturation without scaling";
        case PlaygroundPreset::HullCorners:
            return "Hull corners";
    }
    throw ArgumentError("Unknown playground preset.");
}

PlaygroundState playground_preset(PlaygroundPreset preset) {
    switch (preset) {
        case PlaygroundPreset::WorkedExample:
            return worked_example();
        case PlaygroundPreset::TwoClusters:
            return two_clusters();
        case PlaygroundPreset::OneDominantKey:
            return one_dominant_key();
        case PlaygroundPreset::Saturation:
            return saturation();
        case PlaygroundPreset::HullCorners:
            return hull_corners();
    }
    throw ArgumentError("Unknown playground preset.");
}

}  // namespace attn
