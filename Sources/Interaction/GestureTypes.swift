// Touch and trackpad gestures as plain logic: timestamped touch points in, RFB pointer events and
// viewport changes out. No SDL types and no timers (the caller polls with the time), so every
// gesture is a unit test over a sequence of points.
//
// Gestures (both modes unless noted):
// - touch mode: tap = left click where the finger is; double tap = double click (the second click
//   goes to the first one's pixel); press and hold still, then move = left drag; a quick one-finger
//   move = pointer move without buttons (hover); a slow still touch = pointer move only.
// - trackpad mode: one-finger move = relative soft-cursor move with acceleration; tap = left click
//   at the cursor (sent once the double-tap interval has passed, so that a double-tap-and-hold
//   is a clean drag and not a click plus a drag); tap then tap = double click; double-tap-and-hold
//   then move = left drag.
// - two-finger tap = right click; three-finger tap = middle click; four-finger tap = reset zoom to
//   fit (a tap with more fingers than any click uses, so it cannot be hit by accident).
// - two-finger drag = pan the zoomed view; what the view cannot pan (at its edge, or not zoomed)
//   scrolls the remote desktop (wheel buttons 4-7), with momentum after the fingers lift.
// - pinch = zoom about the pinch centre, from fit up to `maxZoom`; the centre follows the fingers,
//   so pinching also pans. Pinching in to fit or below snaps back to fit.
//
// This file: the values in and out and the thresholds. The recogniser: GestureRecognizer.swift
// (the shared core: fingers, taps, drags), +Trackpad (the relative cursor), +ScrollPinch.

import Foundation

/// One touch point as the front end reports it.
public struct TouchEvent: Equatable, Sendable {
    public enum Phase: Equatable, Sendable { case down, move, up }
    /// Identifies the finger from down to up (SDL's finger id).
    public var finger: Int64
    public var phase: Phase
    /// Window points (SDL's normalised coordinates times the window size).
    public var x: Double, y: Double
    /// Seconds, from any fixed origin (SDL's timestamp / 1000).
    public var time: Double
    public init(finger: Int64, _ phase: Phase, x: Double, y: Double, time: Double) {
        self.finger = finger; self.phase = phase; self.x = x; self.y = y; self.time = time
    }
    public var point: ViewPoint { ViewPoint(x: x, y: y) }
}

/// What a gesture does: RFB pointer events in the order they are to be sent, and view changes
/// (already applied to the viewport passed in).
public enum GestureAction: Equatable, Sendable, CustomStringConvertible {
    /// A PointerEvent: framebuffer pixel and button mask (bit 0 = button 1; 8/16 wheel up/down,
    /// 32/64 wheel left/right, each step sent pressed then released).
    case pointer(x: Int, y: Int, buttons: UInt16)
    /// The viewport's zoom or pan changed: draw again.
    case viewChanged
    /// Three fingers swiped in a direction (the front end's shortcut: the screen picker up,
    /// the next/previous screen sideways); nothing is sent for it.
    case threeFingerSwipe(SwipeDirection)

    public var description: String {
        switch self {
        case .pointer(let x, let y, let b): return "(\(x),\(y) b\(b))"
        case .viewChanged: return "view"
        case .threeFingerSwipe(let d): return "swipe3 \(d)"
        }
    }
}

public enum SwipeDirection: Equatable, Sendable { case up, down, left, right }

/// Thresholds shared by both modes.
public enum GestureConstants {
    /// A tap is quicker than this; a deliberate press lasts longer (taps measure 50-200 ms).
    public static let tapMaxDuration = 0.25
    /// Window points a finger may wander and still tap: fingertip jitter stays within a few points.
    public static let tapSlop = 10.0
    /// A second tap within this of the first makes a double click: inside the desktops' double-click
    /// time (GTK 400 ms, X toolkits 500 ms) with room for the trip to the server.
    public static let doubleTapInterval = 0.3
    /// A fingertip never lands twice on the same point; within this it counts as the same place.
    public static let doubleTapSlop = 30.0
    /// Still this long before moving makes a drag (Android's long press is 0.5 s as well).
    public static let holdTime = 0.5
    /// Change in finger distance (points) before two fingers pinch rather than scroll: larger than
    /// the distance change of two fingers dragged together.
    public static let pinchSlop = 24.0
    /// Points of two-finger travel per wheel step: a few steps per short swipe, like a touchpad.
    public static let scrollStep = 20.0
    /// Largest pinch zoom (output pixels per framebuffer pixel): past 8x a pixel fills a fingertip.
    public static let maxZoom = 8.0
    /// Momentum decays as exp(-t / this): a fling coasts about a second (iOS scroll views feel alike).
    public static let momentumTimeConstant = 0.35
    /// Lift-off speed (points/s) below which there is no momentum: fingers that stopped before
    /// lifting mean "stop here".
    public static let momentumMinSpeed = 300.0
    /// Momentum ends below this speed (points/s): slower than this no one sees it move.
    public static let momentumStopSpeed = 20.0
    /// Lift-off speed is measured over the last this many seconds: earlier motion is stale.
    public static let velocityWindow = 0.1
    /// Trackpad acceleration: gain 1 up to `accelLowSpeed` points/s, rising linearly to
    /// `accelMaxGain` at `accelHighSpeed`, so slow moves are precise and fast ones cross the screen.
    public static let accelLowSpeed = 150.0
    public static let accelHighSpeed = 1200.0
    public static let accelMaxGain = 3.0
}
