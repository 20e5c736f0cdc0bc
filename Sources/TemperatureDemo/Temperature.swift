// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift

// The events and the rating of the README's temperature story.

struct TemperatureEvent: Eventable {
    var temperatureInCelsius: Float
}

enum TemperatureRating: String, Sendable {
    case freezing, reallyCold, cold, warm, hot, reallyHot

    static func fromTemperature(_ celsius: Float) -> TemperatureRating {
        switch celsius {
        case ..<0: .freezing
        case ..<5: .reallyCold
        case ..<15: .cold
        case ..<25: .warm
        case ..<35: .hot
        default: .reallyHot
        }
    }
}

/// The reciprocal event: the temperature together with its rating.
struct TemperatureRatingEvent: Eventable {
    var temperatureInCelsius: Float
    var temperatureRating: TemperatureRating
}

/// Temperatures print as `21.5 °C`.
extension Float {
    var celsius: String { "\(self) °C" }
}
