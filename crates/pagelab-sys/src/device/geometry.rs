//! The device family: one catalogue of the paging, swapping and file devices of every system
//! the lab models, each with its format and one timing law.
//!
//! ```text
//!  Disk ──► Timing::Mechanical(Geometry)   seek(d) + rotational position + transfer
//!       └─► Timing::Measured { page_ns }   one measured time per page (the M44's 1301)
//!
//!  seek(0) = 0,  seek(d) = min + coef·√( min(1, (d − origin) / (C − 1 − origin)) )
//! ```
//!
//! **One seek law, parameterised per device.** `min` is the shortest non-zero seek, `C` the
//! cylinders, and two parameters say what the catalogue's numbers mean:
//! - IBM moving-arm disks (`origin` 0): the source gives the minimum and the *average* seek;
//!   `coef` is chosen so that the mean over uniformly random start and end cylinders equals the
//!   average (E√|U−V| = 8/15 for U, V uniform on [0, 1]: coef = (avg − min)·15/8). The maximum
//!   is then implied (3380: 27.4 ms against 29 ms inferred).
//! - DEC RK05 (`origin` 1): the RK05 manual gives the track-to-track (one cylinder) and the
//!   full-stroke seek; the law passes through both (fidelity-notes §1.7 [I]), coef = max − min.
//!
//! Drums (2301, 2305) have a head per track: one "cylinder", no seek. Rotation and transfer:
//! one revolution `rotation_ns`, `pages_per_track` records on a track (fractional where
//! records span tracks), a page's transfer from the channel rate (IBM) or one sector's share
//! of a revolution (RK05, whose records are its 512-byte sectors). How the rotational
//! *position* is found is the device's controller's business: the IBM devices' rotational
//! position sensing reads the platter's angle (`device.rs`); the RK11 has none, and its
//! requests meet the platter at an angle taken uniform over a revolution (`unix/disk.rs`).

use serde::{Deserialize, Serialize};

/// The device catalogue, as a spec names it. Parameters in [`Geometry::of`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DeviceModel {
    /// IBM 2301 drum.
    #[serde(rename = "2301")]
    Ibm2301,
    /// IBM 2305 model 1 fixed-head disk.
    #[serde(rename = "2305-1")]
    Ibm2305_1,
    /// IBM 2305 model 2 fixed-head disk.
    #[serde(rename = "2305-2")]
    Ibm2305_2,
    /// IBM 2314 moving-arm disk.
    #[serde(rename = "2314")]
    Ibm2314,
    /// IBM 3330 model 1 moving-arm disk.
    #[serde(rename = "3330")]
    Ibm3330,
    /// IBM 3350 moving-arm disk.
    #[serde(rename = "3350")]
    Ibm3350,
    /// IBM 3380 moving-arm disk (one actuator).
    #[serde(rename = "3380")]
    Ibm3380,
}

/// Every device of the catalogue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Disk {
    /// IBM 2301 drum (CP-67).
    Ibm2301,
    /// IBM 2305 model 1 fixed-head disk.
    Ibm2305_1,
    /// IBM 2305 model 2 fixed-head disk.
    Ibm2305_2,
    /// IBM 2314 moving-arm disk.
    Ibm2314,
    /// IBM 3330 model 1 moving-arm disk.
    Ibm3330,
    /// IBM 3350 moving-arm disk.
    Ibm3350,
    /// IBM 3380 moving-arm disk (one actuator).
    Ibm3380,
    /// DEC RK05 cartridge disk on an RK11 controller (UNIX V6, Chanson 1982 §2.A).
    Rk05,
    /// IBM 1301 model II disk file (the M44/44X, Brawn & Gustavson 1968).
    Ibm1301,
}

impl From<DeviceModel> for Disk {
    fn from(m: DeviceModel) -> Disk {
        match m {
            DeviceModel::Ibm2301 => Disk::Ibm2301,
            DeviceModel::Ibm2305_1 => Disk::Ibm2305_1,
            DeviceModel::Ibm2305_2 => Disk::Ibm2305_2,
            DeviceModel::Ibm2314 => Disk::Ibm2314,
            DeviceModel::Ibm3330 => Disk::Ibm3330,
            DeviceModel::Ibm3350 => Disk::Ibm3350,
            DeviceModel::Ibm3380 => Disk::Ibm3380,
        }
    }
}

/// How long a device takes for a page.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Timing {
    /// Seek, rotation and transfer from the device's geometry.
    Mechanical(Geometry),
    /// One measured time per page [ns], seek and rotation included.
    Measured {
        /// Time to bring one page in [ns].
        page_ns: u64,
    },
}

impl Timing {
    /// The time per page of a measured device [ns]; `None` for a mechanical one, whose time
    /// depends on where the arm and the platter are.
    pub fn measured_page_ns(&self) -> Option<u64> {
        match self {
            Timing::Measured { page_ns } => Some(*page_ns),
            Timing::Mechanical(_) => None,
        }
    }
}

impl Disk {
    /// The catalogue entry for pages of `page_bytes`; `measured_page_s` is the measured time
    /// per page of a device with no mechanical model ([`Disk::Ibm1301`]), ignored otherwise.
    pub fn timing(self, page_bytes: u32, measured_page_s: f64) -> Timing {
        match self {
            // Brawn & Gustavson give only the time to "seek and transmit" one page, 0.21 s,
            // "computed from our data": measured on the machine, with the M44's own channel and
            // control-program time in it. It stays that input: a seek/rotation breakdown of the
            // 1301 would replace a measurement with numbers the paper does not give.
            Disk::Ibm1301 => Timing::Measured {
                page_ns: (measured_page_s * 1e9).round() as u64,
            },
            _ => Timing::Mechanical(Geometry::of_disk(self, page_bytes)),
        }
    }
}

/// The seek law of one device (module essay).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeekLaw {
    /// Shortest non-zero seek [ns].
    pub min_ns: u64,
    /// Coefficient of the square root [ns].
    pub coef_ns: f64,
    /// Distance at which the law starts from `min_ns` (0 or 1) [cylinders].
    pub origin: u32,
}

impl SeekLaw {
    /// From the minimum and the average over random cylinder pairs [ns] (IBM catalogues).
    pub fn from_min_avg(min_ns: u64, avg_ns: u64) -> SeekLaw {
        SeekLaw {
            min_ns,
            coef_ns: avg_ns.saturating_sub(min_ns) as f64 * 15.0 / 8.0,
            origin: 0,
        }
    }

    /// From the one-cylinder and the full-stroke seek [ns] (the RK05 manual).
    pub fn from_min_max(min_ns: u64, max_ns: u64) -> SeekLaw {
        SeekLaw {
            min_ns,
            coef_ns: max_ns.saturating_sub(min_ns) as f64,
            origin: 1,
        }
    }

    /// Seek time over `d` cylinders on a device of `cylinders` [ns].
    pub fn seek_ns(&self, d: u32, cylinders: u32) -> u64 {
        if d == 0 || cylinders < 2 {
            return 0;
        }
        let span = cylinders.saturating_sub(1 + self.origin).max(1);
        let x = (f64::from(d.saturating_sub(self.origin)) / f64::from(span)).min(1.0);
        self.min_ns + (self.coef_ns * x.sqrt()).round() as u64
    }
}

/// Timing and format of one device model, for a given page size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Geometry {
    /// One revolution [ns].
    pub rotation_ns: u64,
    /// Page records per track (fractional where records span tracks) [pages].
    pub pages_per_track: f64,
    /// Page slots per cylinder [slots].
    pub slots_per_cyl: u32,
    /// Cylinders (1 for drums) [cylinders].
    pub cylinders: u32,
    /// The seek law.
    pub seek: SeekLaw,
    /// Data transfer of one page [ns].
    pub page_transfer_ns: u64,
}

impl Geometry {
    /// The catalogue entry for a VM paging device (values and sources:
    /// `docs/reference/devices.csv`).
    pub fn of(model: DeviceModel, page_bytes: u32) -> Geometry {
        Geometry::of_disk(model.into(), page_bytes)
    }

    /// The catalogue entry for `disk` with pages of `page_bytes`.
    ///
    /// # Panics
    /// For [`Disk::Ibm1301`], which has no mechanical model (see [`Disk::timing`]).
    pub fn of_disk(disk: Disk, page_bytes: u32) -> Geometry {
        // (rotation ms, pages/track, slots/cyl, cylinders, seek min ms, seek avg ms, bytes/s)
        let (rot, ppt, spc, cyl, smin, savg, rate): (f64, f64, u32, u32, f64, f64, f64) = match disk
        {
            // 2301: 9 pages per track pair over 200 tracks (CP-67 format); 1.2 MB/s.
            Disk::Ibm2301 => (17.5, 4.5, 900, 1, 0.0, 0.0, 1_200_000.0),
            // 2305-1: 3 pages/track (inferred from track capacity), 384 tracks, 3 MB/s.
            Disk::Ibm2305_1 => (10.0, 3.0, 1152, 1, 0.0, 0.0, 3_000_000.0),
            // 2305-2: 3 pages/track (inferred), 768 tracks, 1.5 MB/s.
            Disk::Ibm2305_2 => (10.0, 3.0, 2304, 1, 0.0, 0.0, 1_500_000.0),
            // 2314: 32 slots per 20-track cylinder (VM/370 format), 200 cylinders; rotation inferred.
            Disk::Ibm2314 => (25.0, 1.6, 32, 200, 25.0, 60.0, 310_000.0),
            // 3330: 3/track, 57/cylinder (VM/370 format), 404 cylinders; timing commonly cited.
            Disk::Ibm3330 => (16.7, 3.0, 57, 404, 10.0, 30.0, 806_000.0),
            // 3350: 4/track, 120/cylinder, 555 cylinders.
            Disk::Ibm3350 => (16.8, 4.0, 120, 555, 10.0, 25.0, 1_198_000.0),
            // 3380: 10/track, 150/cylinder (inferred), 885 cylinders per actuator, 3 MB/s.
            Disk::Ibm3380 => (16.7, 10.0, 150, 885, 3.0, 16.0, 3_000_000.0),
            Disk::Rk05 => return Geometry::rk05(&Rk05::default()),
            Disk::Ibm1301 => panic!("the IBM 1301 is timed by its measured page time"),
        };
        let ms = |x: f64| (x * 1e6).round() as u64;
        Geometry {
            rotation_ns: ms(rot),
            pages_per_track: ppt,
            slots_per_cyl: spc,
            cylinders: cyl,
            seek: SeekLaw::from_min_avg(ms(smin), ms(savg)),
            page_transfer_ns: (f64::from(page_bytes) / rate * 1e9).round() as u64,
        }
    }

    /// An RK05 of the given format; its pages are its 512-byte sectors.
    pub fn rk05(f: &Rk05) -> Geometry {
        let ms = |x: f64| (x * 1e6).round() as u64;
        let rotation_ns = ms(f.rotation_ms);
        Geometry {
            rotation_ns,
            pages_per_track: f64::from(f.sectors_per_track),
            slots_per_cyl: f.blocks_per_cylinder,
            cylinders: f.blocks_per_drive.div_ceil(f.blocks_per_cylinder.max(1)),
            seek: SeekLaw::from_min_max(ms(f.seek_min_ms), ms(f.seek_max_ms)),
            page_transfer_ns: (rotation_ns as f64 / f64::from(f.sectors_per_track.max(1))).round()
                as u64,
        }
    }

    /// Slots on the device [slots].
    pub fn slots(&self) -> u32 {
        self.slots_per_cyl * self.cylinders
    }

    /// Seek time between two cylinders [ns].
    pub fn seek_ns(&self, from: u32, to: u32) -> u64 {
        self.seek.seek_ns(from.abs_diff(to), self.cylinders)
    }

    /// Offset of slot `s` (within its cylinder) from the index point [ns].
    pub fn slot_offset_ns(&self, s: u32) -> u64 {
        let turns = f64::from(s) / self.pages_per_track;
        ((turns - turns.floor()) * self.rotation_ns as f64).round() as u64
    }
}

/// The RK05's format and timing as a spec gives them (UNIX `[disk]`); the default is the
/// catalogue's (DEC RK05 manual; V6 `NRKBLK`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rk05 {
    /// Blocks per drive [512-B blocks].
    pub blocks_per_drive: u32,
    /// Blocks per cylinder (sectors per track × surfaces) [blocks].
    pub blocks_per_cylinder: u32,
    /// Sectors per track [sectors].
    pub sectors_per_track: u32,
    /// One revolution [ms].
    pub rotation_ms: f64,
    /// Track-to-track seek [ms].
    pub seek_min_ms: f64,
    /// Full-stroke seek [ms].
    pub seek_max_ms: f64,
}

impl Default for Rk05 {
    fn default() -> Self {
        Rk05 {
            blocks_per_drive: 4872,
            blocks_per_cylinder: 24,
            sectors_per_track: 12,
            rotation_ms: 40.0,
            seek_min_ms: 10.0,
            seek_max_ms: 85.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seek_law_meets_catalogue_minimum_and_average() {
        let g = Geometry::of(DeviceModel::Ibm3380, 4096);
        assert_eq!(g.seek_ns(10, 10), 0);
        // One cylinder: min plus a sliver.
        assert!(g.seek_ns(0, 1) - g.seek.min_ns < 1_000_000);
        // Mean over all pairs is the catalogue average within 2 %.
        let c = g.cylinders;
        let mut sum = 0f64;
        for a in (0..c).step_by(7) {
            for b in (0..c).step_by(7) {
                sum += g.seek_ns(a, b) as f64;
            }
        }
        let n = f64::from(c.div_ceil(7));
        let mean = sum / (n * n);
        // Includes the zero-distance pairs, which weigh 1/n.
        assert!((mean / 16e6 - 1.0).abs() < 0.02, "mean seek {mean}");
    }

    #[test]
    fn rk05_seek_runs_from_track_to_track_to_full_stroke() {
        let g = Geometry::of_disk(Disk::Rk05, 512);
        assert_eq!(g.cylinders, 203);
        assert_eq!(g.seek_ns(7, 7), 0);
        assert_eq!(g.seek_ns(0, 1), 10_000_000);
        assert_eq!(g.seek_ns(0, 202), 85_000_000);
        // Half way in distance: min + (max − min)·√(100/201).
        let half = 10e6 + 75e6 * (100.0f64 / 201.0).sqrt();
        assert_eq!(g.seek_ns(0, 101), half.round() as u64);
        assert_eq!(g.rotation_ns, 40_000_000);
        assert_eq!(g.page_transfer_ns, 3_333_333);
    }

    #[test]
    fn the_1301_keeps_its_measured_page_time() {
        assert_eq!(
            Disk::Ibm1301.timing(4096, 0.21),
            Timing::Measured {
                page_ns: 210_000_000
            }
        );
        let g = Geometry::of(DeviceModel::Ibm3330, 4096);
        assert_eq!(Disk::Ibm3330.timing(4096, 0.21), Timing::Mechanical(g));
    }
}
