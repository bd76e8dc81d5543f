//! Errors: every argument a plan or an execution rejects, named, with the rule it broke.

/// Why a plan could not be made or executed. Nothing is written to any buffer when an
/// execution returns an error from argument checking.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum FftError {
    /// A transform rank outside 1 to 3.
    #[error("transform rank must be 1, 2 or 3, got {rank}")]
    InvalidRank {
        /// The rank asked for.
        rank: usize,
    },
    /// A size, count, stride or distance that breaks its rule.
    #[error("{what} is {value}: {rule}")]
    InvalidSize {
        /// The argument (`"n[0]"`, `"batch"`, `"input stride"`, ...).
        what: String,
        /// Its value.
        value: usize,
        /// The rule it broke.
        rule: &'static str,
    },
    /// Sizes whose product (elements, bytes or the layout's extent) overflows.
    #[error("{what} overflows: the sizes and layout describe more than {max} elements")]
    Overflow {
        /// What overflowed.
        what: &'static str,
        /// The largest supported value.
        max: u64,
    },
    /// An embedded size smaller than the transform size it holds.
    #[error("{side} embed[{axis}] is {embed}, smaller than the {size} elements of that axis")]
    EmbedTooSmall {
        /// `"input"` or `"output"`.
        side: &'static str,
        /// The axis.
        axis: usize,
        /// The embedded size given.
        embed: usize,
        /// The elements the axis holds.
        size: usize,
    },
    /// An embed array whose length is not the rank.
    #[error("{side} embed has {len} entries, the transform rank is {rank}")]
    EmbedRank {
        /// `"input"` or `"output"`.
        side: &'static str,
        /// Entries given.
        len: usize,
        /// The rank.
        rank: usize,
    },
    /// Output strides and distance that map two output elements to one place.
    #[error(
        "output layout overlaps: {dim} (stride {stride}) does not step past the {extent} elements \
         spanned by the dimensions with smaller strides; each stride must exceed that span"
    )]
    OverlappingOutput {
        /// The dimension that lands on earlier ones (`"axis 1"`, `"batch"`).
        dim: String,
        /// Its stride.
        stride: usize,
        /// The span of the smaller-stride dimensions.
        extent: usize,
    },
    /// A buffer shorter than the layout needs.
    #[error("{what} buffer holds {len} elements, the layout needs {required}")]
    BufferTooShort {
        /// `"input"`, `"output"` or `"work area"`.
        what: &'static str,
        /// Its length, in its own elements.
        len: usize,
        /// The length needed.
        required: usize,
    },
    /// An in-place execution whose layouts do not describe the same memory for input and output.
    #[error("in-place {kind} needs {rule}")]
    InPlaceLayout {
        /// The transform type.
        kind: &'static str,
        /// What the layouts must satisfy.
        rule: &'static str,
    },
    /// A buffer or stream on another device than the plan's.
    #[error("{what} is on device {device}, the plan is on device {plan_device}")]
    WrongDevice {
        /// `"input"`, `"output"`, `"work area"` or `"stream"`.
        what: &'static str,
        /// Its device.
        device: usize,
        /// The plan's device.
        plan_device: usize,
    },
    /// An execution function that does not match the plan's transform type.
    #[error("{called} called on a {plan} plan")]
    WrongTransformType {
        /// The function called.
        called: &'static str,
        /// The plan's transform type.
        plan: &'static str,
    },
    /// The direction given does not exist for this transform type.
    #[error("{kind} transforms only run {allowed}")]
    WrongDirection {
        /// The transform type.
        kind: &'static str,
        /// The direction they run.
        allowed: &'static str,
    },
    /// The runtime refused an allocation, copy or launch.
    #[error("device runtime: {0}")]
    Runtime(#[from] ferrocm_kernel::runtime::Error),
    /// A kernel could not be built, compiled or loaded.
    #[error("kernel: {message}")]
    Kernel {
        /// The kernel layer's message.
        message: String,
    },
    /// A transform the planner cannot build (the message says which limit).
    #[error("unsupported: {what}")]
    Unsupported {
        /// What was asked.
        what: String,
    },
}

impl From<ferrocm_kernel::KernelError> for FftError {
    fn from(e: ferrocm_kernel::KernelError) -> FftError {
        FftError::Kernel { message: e.to_string() }
    }
}
