//! The `#[kernel]` and `#[device]` attribute macros of ferrocm's kernel language.
//!
//! Design: the macro does not compile anything. It rewrites the function body into Rust code
//! that, when run, builds ferrocm IR through `ferrocm_kernel::dsl` (see that module). The
//! rewrite is syntactic and small: comparisons become trait calls (Rust's `<` must return
//! `bool`), `if`/`while`/`loop`/`for` over a range become calls taking closures (the condition's
//! type picks compile-time or runtime control flow), `let mut` becomes an IR variable, indexing
//! becomes loads and stores, `as` becomes a cast trait, `break`/`continue`/`return` become
//! builder calls. Arithmetic, method calls, function calls and field accesses pass through, so
//! rustc checks their types. Constructs that only make sense at compile time stay Rust, with
//! their bodies rewritten: `for` over an iterator (unrolled), `match`, `if let`, closures,
//! `vec!`, `#[comptime] let mut` (assignments checked against runtime control flow). Anything
//! else is rejected with a `syn::Error` at its span; the macro never panics.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{
    parse_macro_input, BinOp, Block, Expr, FnArg, GenericParam, ItemFn, Pat, ReturnType, Stmt, Type, UnOp,
};

/// Marks a kernel entry point. See the `ferrocm_kernel` crate documentation.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    let f = parse_macro_input!(item as ItemFn);
    let attr = TokenStream2::from(attr);
    let r = if !attr.is_empty() {
        Err(syn::Error::new(attr.span(), "#[kernel] takes no arguments"))
    } else {
        expand_kernel(f)
    };
    r.unwrap_or_else(|e| e.to_compile_error()).into()
}

/// Marks a function callable from kernels (inlined into them): a free function, a method, every
/// method of an `impl` block (so a tile, a pipeline stage or a generator state can be a type
/// with methods), or every provided method of a `trait` (what generator states share).
#[proc_macro_attribute]
pub fn device(attr: TokenStream, item: TokenStream) -> TokenStream {
    let attr = TokenStream2::from(attr);
    if !attr.is_empty() {
        return syn::Error::new(attr.span(), "#[device] takes no arguments").to_compile_error().into();
    }
    let r = if let Ok(imp) = syn::parse::<syn::ItemImpl>(item.clone()) {
        expand_device_impl(imp)
    } else if let Ok(tr) = syn::parse::<syn::ItemTrait>(item.clone()) {
        expand_device_trait(tr)
    } else {
        let f = parse_macro_input!(item as ItemFn);
        expand_device(f, &[])
    };
    r.unwrap_or_else(|e| e.to_compile_error()).into()
}

/// The names of an item's type parameters (element types for its methods' parameters).
fn type_params(generics: &syn::Generics) -> Vec<String> {
    generics
        .params
        .iter()
        .filter_map(|g| match g {
            GenericParam::Type(t) => Some(t.ident.to_string()),
            _ => None,
        })
        .collect()
}

/// `#[device]` on an `impl` block: each method becomes a device function; the block's type
/// parameters count as element types for its methods' parameters.
fn expand_device_impl(mut imp: syn::ItemImpl) -> syn::Result<TokenStream2> {
    let outer = type_params(&imp.generics);
    for item in imp.items.iter_mut() {
        if let syn::ImplItem::Fn(m) = item {
            let f = ItemFn {
                attrs: m.attrs.clone(),
                vis: m.vis.clone(),
                sig: m.sig.clone(),
                block: Box::new(m.block.clone()),
            };
            let expanded = expand_device(f, &outer)?;
            *m = syn::parse2(expanded)?;
        }
    }
    Ok(quote!(#imp))
}

/// `#[device]` on a `trait`: each provided method becomes a device function (required methods
/// keep their signatures); the trait's type parameters count as element types.
fn expand_device_trait(mut tr: syn::ItemTrait) -> syn::Result<TokenStream2> {
    let outer = type_params(&tr.generics);
    for item in tr.items.iter_mut() {
        if let syn::TraitItem::Fn(m) = item {
            let Some(block) = &m.default else { continue };
            let f = ItemFn {
                attrs: m.attrs.clone(),
                vis: syn::Visibility::Inherited,
                sig: m.sig.clone(),
                block: Box::new(block.clone()),
            };
            let expanded = expand_device(f, &outer)?;
            *m = syn::parse2(expanded)?;
        }
    }
    Ok(quote!(#tr))
}

fn err<T>(span: Span, msg: impl std::fmt::Display) -> syn::Result<T> {
    Err(syn::Error::new(span, msg))
}

const SCALARS: &[&str] = &[
    "bool", "i8", "i16", "i32", "i64", "isize", "u8", "u16", "u32", "u64", "usize", "f16", "bf16", "f32",
    "f64",
];

enum ParamKind {
    Scalar(Type),
    Slice(Type),
    SliceMut(Type),
    /// A tensor map (`TensorMap`), passed by value.
    TensorMap,
}

/// Whether `ty` names the kernel language's `TensorMap` parameter type.
fn is_tensor_map(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none()
        && p.path.segments.last().is_some_and(|s| s.ident == "TensorMap" && s.arguments.is_empty()))
}

/// Whether `ty` is a scalar element type: a primitive name or one of the generic type params.
fn is_scalar(ty: &Type, generics: &[String]) -> bool {
    if let Type::Path(p) = ty {
        if p.qself.is_none() && p.path.segments.len() == 1 && p.path.segments[0].arguments.is_empty() {
            let name = p.path.segments[0].ident.to_string();
            return SCALARS.contains(&name.as_str()) || generics.contains(&name);
        }
        if let Some(last) = p.path.segments.last() {
            let n = last.ident.to_string();
            return p.path.segments.len() > 1 && (n == "f16" || n == "bf16");
        }
    }
    false
}

fn classify(ty: &Type, generics: &[String]) -> Option<ParamKind> {
    match ty {
        Type::Reference(r) => match &*r.elem {
            Type::Slice(s) if is_scalar(&s.elem, generics) => Some(if r.mutability.is_some() {
                ParamKind::SliceMut((*s.elem).clone())
            } else {
                ParamKind::Slice((*s.elem).clone())
            }),
            _ => None,
        },
        t if is_scalar(t, generics) => Some(ParamKind::Scalar(t.clone())),
        t if is_tensor_map(t) => Some(ParamKind::TensorMap),
        _ => None,
    }
}

fn take_comptime(attrs: &mut Vec<syn::Attribute>) -> bool {
    let before = attrs.len();
    attrs.retain(|a| !a.path().is_ident("comptime"));
    attrs.len() != before
}

fn type_generics(f: &ItemFn) -> syn::Result<(Vec<String>, Vec<TokenStream2>)> {
    let mut types = Vec::new();
    let mut args = Vec::new();
    for g in &f.sig.generics.params {
        match g {
            GenericParam::Type(t) => {
                types.push(t.ident.to_string());
                args.push(t.ident.to_token_stream());
            }
            GenericParam::Const(c) => args.push(c.ident.to_token_stream()),
            GenericParam::Lifetime(l) => return err(l.span(), "kernels take no lifetime parameters"),
        }
    }
    Ok((types, args))
}

fn expand_kernel(mut f: ItemFn) -> syn::Result<TokenStream2> {
    if let ReturnType::Type(_, t) = &f.sig.output {
        return err(t.span(), "a #[kernel] returns nothing; write results to a `&mut [T]` parameter");
    }
    if let Some(a) = &f.sig.asyncness {
        return err(a.span(), "a #[kernel] cannot be async");
    }
    let (generic_types, generic_args) = type_generics(&f)?;
    let name = f.sig.ident.clone();
    let vis = f.vis.clone();
    let (impl_generics, _, where_clause) = f.sig.generics.split_for_impl();
    let krate = quote!(::ferrocm_kernel::__private);

    let mut comptime_params = Vec::new(); // `name: Ty`
    let mut comptime_names = Vec::new();
    let mut runtime_params = Vec::new(); // `name: Ty` as written (host launch signature)
    let mut runtime_names = Vec::new();
    let mut param_decls = Vec::new();
    let mut launch_params = Vec::new();
    let mut launch_pushes = Vec::new();
    let mut tr = Translator::new(false);
    for arg in f.sig.inputs.iter_mut() {
        let FnArg::Typed(pt) = arg else {
            return err(arg.span(), "a #[kernel] is a free function; `self` is not allowed");
        };
        let comptime = take_comptime(&mut pt.attrs);
        let Pat::Ident(pi) = &*pt.pat else {
            return err(pt.pat.span(), "kernel parameters must be plain names");
        };
        let id = pi.ident.clone();
        let ty = &pt.ty;
        if comptime {
            comptime_params.push(quote!(#id: #ty));
            comptime_names.push(id.clone());
            tr.declare(&id.to_string(), Binding::Plain);
            continue;
        }
        let id_str = id.to_string();
        let elem = quote!(::ferrocm_kernel::dsl::Elem);
        let decl = match classify(ty, &generic_types) {
            Some(ParamKind::Scalar(t)) => {
                launch_params.push(quote!(#id: #t));
                launch_pushes.push(quote!(#krate::push_scalar::<#t>(&mut __args, #id);));
                quote!(let #id: ::ferrocm_kernel::dsl::Val<#t> = #krate::dsl::scalar_param::<#t>(#id_str);)
            }
            Some(ParamKind::Slice(t)) => {
                launch_params.push(quote!(#id: &impl #krate::AsDeviceSlice<<#t as #elem>::Repr>));
                launch_pushes.push(quote!(#krate::push_slice::<#t>(&mut __args, #id);));
                quote!(let #id = #krate::dsl::slice_param::<#t>(#id_str);)
            }
            Some(ParamKind::SliceMut(t)) => {
                launch_params.push(quote!(#id: &mut impl #krate::AsDeviceSliceMut<<#t as #elem>::Repr>));
                launch_pushes.push(quote!(#krate::push_slice::<#t>(&mut __args, &*#id);));
                quote!(let #id = #krate::dsl::slice_mut_param::<#t>(#id_str);)
            }
            Some(ParamKind::TensorMap) => {
                launch_params.push(quote!(#id: &::ferrocm_kernel::runtime::TensorMap<'_>));
                launch_pushes.push(quote!(__args.push_tensor_map(#id);));
                runtime_params.push(quote!(#id: &::ferrocm_kernel::HostTensorMap<'_>));
                runtime_names.push(id.clone());
                tr.declare(&id.to_string(), Binding::Plain);
                param_decls.push(quote!(let #id = #krate::dsl::tensor_map_param(#id_str);));
                continue;
            }
            None => {
                return err(
                    ty.span(),
                    "unsupported kernel parameter type: use a scalar (bool, integers, f16, bf16, f32, f64 or a \
                     generic element type), `&[T]`, `&mut [T]`, `TensorMap`, or mark a compile-time value with \
                     #[comptime]",
                )
            }
        };
        param_decls.push(decl);
        runtime_params.push(quote!(#id: #ty));
        runtime_names.push(id.clone());
        tr.declare(&id.to_string(), Binding::Plain);
    }
    let body = tr.block_inner(&f.block)?;
    let name_str = name.to_string();
    let ct_parts: Vec<TokenStream2> = generic_args
        .iter()
        .enumerate()
        .map(|(i, g)| {
            if i < f.sig.generics.params.len() && matches!(f.sig.generics.params[i], GenericParam::Type(_)) {
                quote!(::std::any::type_name::<#g>().to_string())
            } else {
                quote!(::std::format!("{:?}", #g))
            }
        })
        .chain(comptime_names.iter().map(|c| quote!(::std::format!("{:?}", #c))))
        .collect();
    // The same text as `__comptime_key`, written to a sink without allocating (for the cache).
    let key_writes: Vec<TokenStream2> = generic_args
        .iter()
        .enumerate()
        .map(|(i, g)| {
            if i < f.sig.generics.params.len() && matches!(f.sig.generics.params[i], GenericParam::Type(_)) {
                quote!(__w.write_str(::std::any::type_name::<#g>())?;)
            } else {
                quote!(::std::write!(__w, "{:?}", #g)?;)
            }
        })
        .chain(comptime_names.iter().map(|c| quote!(::std::write!(__w, "{:?}", #c)?;)))
        .collect();
    let key_writes: Vec<TokenStream2> = key_writes
        .iter()
        .enumerate()
        .map(|(i, w)| if i == 0 { w.clone() } else { quote!(__w.write_str(",")?; #w) })
        .collect();
    // The same values as a tuple, for the by-value lookup (type parameters by name).
    let value_parts: Vec<TokenStream2> = generic_args
        .iter()
        .enumerate()
        .map(|(i, g)| {
            if i < f.sig.generics.params.len() && matches!(f.sig.generics.params[i], GenericParam::Type(_)) {
                quote!(::std::any::type_name::<#g>())
            } else {
                quote!(#g)
            }
        })
        .chain(comptime_names.iter().map(|c| quote!(::std::clone::Clone::clone(&#c))))
        .collect();
    let has_comptime = !generic_args.is_empty() || !comptime_names.is_empty();
    let turbofish = if generic_args.is_empty() { quote!() } else { quote!(::<#(#generic_args),*>) };
    let kernel_body = if has_comptime {
        quote! {
            static __CACHE: #krate::InstanceCache = #krate::InstanceCache::new();
            let __key = |__w: &mut dyn ::std::fmt::Write| -> ::std::fmt::Result {
                #(#key_writes)*
                ::std::result::Result::Ok(())
            };
            // Values that are `Hash + Eq` are looked up as values (no formatting per call);
            // others by their text.
            use #krate::{ByText as _, ByValue as _};
            let __values = (#(#value_parts,)*);
            (&#krate::Probe(&__values)).instance(
                &__CACHE,
                &__key,
                &mut |__ct| build #turbofish (#(::std::clone::Clone::clone(&#comptime_names)),*),
                #name_str,
            )
        }
    } else {
        quote! {
            static __KERNEL: ::std::sync::OnceLock<#krate::Arc<::ferrocm_kernel::CompiledKernel>> =
                ::std::sync::OnceLock::new();
            if let ::std::option::Option::Some(__k) = __KERNEL.get() {
                return ::std::result::Result::Ok(__k.clone());
            }
            static __CACHE: #krate::InstanceCache = #krate::InstanceCache::new();
            let __k = __CACHE.get_or_build(&|_: &mut dyn ::std::fmt::Write| ::std::result::Result::Ok(()), |_| build(), #name_str)?;
            ::std::result::Result::Ok(__KERNEL.get_or_init(|| __k).clone())
        }
    };
    let doc = format!("The `{name_str}` kernel: build, compile (cached) and launch.");
    Ok(quote! {
        #[doc = #doc]
        #[allow(non_snake_case, unused_imports, clippy::all)]
        #vis mod #name {
            use super::*;
            use ::ferrocm_kernel::prelude::*;

            fn __comptime_key #impl_generics (#(#comptime_params),*) -> ::std::string::String #where_clause {
                let parts: ::std::vec::Vec<::std::string::String> = ::std::vec![#(#ct_parts),*];
                parts.join(",")
            }

            #[allow(unused_variables, unused_mut, unused_braces, unreachable_code, clippy::all)]
            fn __body #impl_generics (#(#comptime_params),*) #where_clause {
                #(#param_decls)*
                #body
            }

            /// Builds the kernel's IR (no caching).
            pub fn build #impl_generics (#(#comptime_params),*)
                -> ::std::result::Result<::ferrocm_kernel::ir::Function, ::ferrocm_kernel::ir::BuildError>
                #where_clause
            {
                let __ct = __comptime_key #turbofish (#(::std::clone::Clone::clone(&#comptime_names)),*);
                let __name = #krate::entry_name(#name_str, &__ct);
                #krate::dsl::build_kernel(&__name, move || __body #turbofish (#(#comptime_names),*))
            }

            /// The cached compiled kernel for these compile-time values (built on first use; later
            /// calls take no lock and allocate nothing).
            pub fn kernel #impl_generics (#(#comptime_params),*)
                -> ::std::result::Result<#krate::Arc<::ferrocm_kernel::CompiledKernel>, ::ferrocm_kernel::KernelError>
                #where_clause
            {
                #kernel_body
            }

            /// Launches the kernel on `stream` (any device) through the runtime, which validates
            /// the launch. Slices are passed as address and length.
            pub fn launch #impl_generics (
                __stream: &#krate::Stream,
                __cfg: #krate::LaunchConfig,
                #(#comptime_params,)*
                #(#launch_params),*
            ) -> ::std::result::Result<(), ::ferrocm_kernel::KernelError> #where_clause {
                let __k = kernel #turbofish (#(#comptime_names),*)?;
                let mut __args = #krate::KernelArgs::new();
                #(#launch_pushes)*
                // SAFETY: the arguments follow the kernel's parameters in order and type under
                // the slice ABI (fixed by this signature), and every address comes from a
                // runtime-owned device buffer.
                unsafe { __k.launch_raw(__stream, __cfg, &__args) }
            }

            /// Runs the kernel on the CPU executor over host memory.
            pub fn launch_host #impl_generics (
                __dims: ::ferrocm_kernel::LaunchDims,
                #(#comptime_params,)*
                #(#runtime_params),*
            ) -> ::std::result::Result<(), ::ferrocm_kernel::KernelError> #where_clause {
                let __k = kernel #turbofish (#(#comptime_names),*)?;
                let mut __args = #krate::HostArgs::default();
                #(#krate::HostArg::push(#runtime_names, &mut __args);)*
                __k.launch_host(__dims, &__args)
            }
        }
    })
}

fn expand_device(mut f: ItemFn, outer_generics: &[String]) -> syn::Result<TokenStream2> {
    let (mut generic_types, _) = type_generics(&f)?;
    generic_types.extend(outer_generics.iter().cloned());
    let krate = quote!(::ferrocm_kernel::__private);
    let mut tr = Translator::new(true);
    let mut params = Vec::new();
    let mut convs = Vec::new();
    for arg in f.sig.inputs.iter_mut() {
        let pt = match arg {
            FnArg::Receiver(r) => {
                // A method's receiver passes through; `self` is an ordinary (immutable) name.
                params.push(r.to_token_stream());
                tr.declare("self", Binding::Plain);
                continue;
            }
            FnArg::Typed(pt) => pt,
        };
        let comptime = take_comptime(&mut pt.attrs);
        let Pat::Ident(pi) = &*pt.pat else {
            return err(pt.pat.span(), "device function parameters must be plain names");
        };
        let id = pi.ident.clone();
        let ty = &pt.ty;
        if comptime {
            // A compile-time value: an ordinary Rust parameter.
            params.push(quote!(#id: #ty));
            tr.declare(&id.to_string(), Binding::Plain);
            continue;
        }
        match classify(ty, &generic_types) {
            Some(ParamKind::Scalar(t)) => {
                params.push(quote!(#id: impl ::ferrocm_kernel::dsl::IntoVal<#t>));
                convs.push(quote!(let #id: ::ferrocm_kernel::dsl::Val<#t> = ::ferrocm_kernel::dsl::IntoVal::into_val(#id);));
            }
            Some(ParamKind::Slice(t)) => params.push(quote!(#id: impl ::ferrocm_kernel::dsl::Memory<#t>)),
            Some(ParamKind::SliceMut(t)) => {
                params.push(quote!(#id: impl ::ferrocm_kernel::dsl::MemoryMut<#t>))
            }
            Some(ParamKind::TensorMap) | None => params.push(quote!(#id: #ty)),
        }
        tr.declare(&id.to_string(), Binding::Plain);
        if matches!(classify(ty, &generic_types), Some(ParamKind::Slice(_) | ParamKind::SliceMut(_))) {
            tr.mems.push(id.to_string());
        }
    }
    let (ret_ty, ret_conv): (TokenStream2, Box<dyn Fn(TokenStream2) -> TokenStream2>) = match &f.sig.output {
        ReturnType::Default => (quote!(()), Box::new(|e| e)),
        ReturnType::Type(_, t) if is_scalar(t, &generic_types) => {
            let t2 = t.clone();
            (
                quote!(::ferrocm_kernel::dsl::Val<#t>),
                Box::new(move |e| quote!(::ferrocm_kernel::dsl::typed::<#t2>(#e))),
            )
        }
        ReturnType::Type(_, t) => (t.to_token_stream(), Box::new(|e| e)),
    };
    tr.ret_conv = Some(ret_conv(quote!(__v)));
    let has_return = contains_return(&f.block);
    let mut stmts = f.block.stmts.clone();
    // A trailing `return e;` is the tail value.
    if let Some(Stmt::Expr(Expr::Return(r), Some(_))) = stmts.last() {
        let e = r.expr.clone();
        stmts.pop();
        if let Some(e) = e {
            stmts.push(Stmt::Expr(*e, None));
        }
    }
    let has_tail = matches!(stmts.last(), Some(Stmt::Expr(_, None)));
    let block = Block { brace_token: f.block.brace_token, stmts };
    let inner = tr.block_inner(&block)?;
    let vis = &f.vis;
    let name = &f.sig.ident;
    let attrs = &f.attrs;
    let (impl_generics, _, where_clause) = f.sig.generics.split_for_impl();
    let value = if has_tail { ret_conv(quote!({ #inner })) } else { quote!({ #inner }) };
    let body = match (has_return, has_tail) {
        (false, _) => value,
        (true, true) => quote!(#krate::dsl::device_fn::<#ret_ty>(|__ret| #value)),
        (true, false) => quote!(#krate::dsl::device_fn::<#ret_ty>(|__ret| {
            #inner;
            ::ferrocm_kernel::dsl::Merge::read(__ret)
        })),
    };
    Ok(quote! {
        #(#attrs)*
        #[allow(unused_variables, unused_mut, unused_braces, unreachable_code, clippy::all)]
        #vis fn #name #impl_generics (#(#params),*) -> #ret_ty #where_clause {
            #(#convs)*
            #body
        }
    })
}

fn contains_return(b: &Block) -> bool {
    fn go(ts: TokenStream2) -> bool {
        ts.into_iter().any(|t| match t {
            proc_macro2::TokenTree::Ident(i) => i == "return",
            proc_macro2::TokenTree::Group(g) => go(g.stream()),
            _ => false,
        })
    }
    go(b.to_token_stream())
}

/// What a name in a kernel body is bound to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Binding {
    /// A plain Rust binding: a compile-time value, or a runtime value's handle.
    Plain,
    /// `let mut`: a kernel variable (read with `.get()`, written with `.set()`).
    Var,
    /// `#[comptime] let mut`: a Rust variable of the build (assignments checked by
    /// `comptime_assign`).
    Comptime,
}

/// The body rewriter. `scopes` records, per block, which names are `let mut` variables (read
/// with `.get()`, written with `.set()`); `mems` the memory parameters of a device function
/// (`impl Memory<T>`, indexed by `load`/`store` rather than `index_load`, which needs a
/// concrete memory type) not shadowed since.
struct Translator {
    scopes: Vec<Vec<(String, Binding)>>,
    mems: Vec<String>,
    in_device: bool,
    ret_conv: Option<TokenStream2>,
    /// For each closure being rewritten (innermost last): the loops opened inside it so far, so
    /// `break`/`continue` cannot leave the closure.
    closures: Vec<usize>,
}

fn dsl() -> TokenStream2 {
    quote!(::ferrocm_kernel::__private::dsl)
}

impl Translator {
    fn new(in_device: bool) -> Self {
        Translator {
            scopes: vec![Vec::new()],
            mems: Vec::new(),
            in_device,
            ret_conv: None,
            closures: Vec::new(),
        }
    }

    fn declare(&mut self, name: &str, binding: Binding) {
        self.mems.retain(|m| m != name);
        if let Some(s) = self.scopes.last_mut() {
            s.push((name.to_string(), binding));
        }
    }

    /// A new scope holding `names` as plain bindings (a closure's parameters, a pattern's).
    fn push_plain(&mut self, names: &[String]) {
        self.scopes.push(Vec::new());
        for n in names {
            self.declare(n, Binding::Plain);
        }
    }

    fn binding(&self, name: &str) -> Binding {
        for s in self.scopes.iter().rev() {
            if let Some((_, b)) = s.iter().rev().find(|(n, _)| n == name) {
                return *b;
            }
        }
        Binding::Plain
    }

    /// `e` if it names a `#[comptime] let mut` binding.
    fn comptime_ident(&self, e: &Expr) -> Option<syn::Ident> {
        match e {
            Expr::Path(p) => {
                p.path.get_ident().filter(|id| self.binding(&id.to_string()) == Binding::Comptime).cloned()
            }
            _ => None,
        }
    }

    /// Rewrites a loop's body: inside a closure, `break`/`continue` may leave this loop.
    fn loop_body<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        if let Some(n) = self.closures.last_mut() {
            *n += 1;
        }
        let r = f(self);
        if let Some(n) = self.closures.last_mut() {
            *n -= 1;
        }
        r
    }

    /// An error for `break`/`continue` that would leave the closure it is in.
    fn check_jump(&self, span: Span, what: &str) -> syn::Result<()> {
        if self.closures.last() == Some(&0) {
            return err(
                span,
                format!("`{what}` inside a closure cannot leave a loop outside the closure; use a #[device] function or a loop in the closure"),
            );
        }
        Ok(())
    }

    /// Whether `e` names a device function's memory parameter.
    fn is_mem_param(&self, e: &Expr) -> bool {
        matches!(e, Expr::Path(p) if p.path.get_ident().is_some_and(|id| self.mems.iter().any(|m| id == m)))
    }

    fn is_mut_var(&self, name: &str) -> bool {
        self.binding(name) == Binding::Var
    }

    fn mut_var_ident(&self, e: &Expr) -> Option<syn::Ident> {
        if let Expr::Path(p) = e {
            if let Some(id) = p.path.get_ident() {
                if self.is_mut_var(&id.to_string()) {
                    return Some(id.clone());
                }
            }
        }
        None
    }

    /// A block's statements, in a new scope, as the contents of `{ }`.
    fn block_inner(&mut self, b: &Block) -> syn::Result<TokenStream2> {
        self.scopes.push(Vec::new());
        let n = b.stmts.len();
        let r = b
            .stmts
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let t = self.stmt(s)?;
                // Block-like expressions (`if`, `for`, ...) need no `;` in Rust, but their
                // rewritten forms are calls, which do.
                Ok(if i + 1 < n && matches!(s, Stmt::Expr(_, None)) { quote!(#t;) } else { t })
            })
            .collect::<syn::Result<Vec<_>>>();
        self.scopes.pop();
        let stmts = r?;
        Ok(quote!(#(#stmts)*))
    }

    fn block(&mut self, b: &Block) -> syn::Result<TokenStream2> {
        let inner = self.block_inner(b)?;
        Ok(quote!({ #inner }))
    }

    fn stmt(&mut self, s: &Stmt) -> syn::Result<TokenStream2> {
        match s {
            Stmt::Local(l) if l.attrs.iter().any(|a| a.path().is_ident("comptime")) => self.comptime_let(l),
            Stmt::Local(l) => {
                // `let (a, b) = (x, y);` is two lets (both values computed first).
                if let (Pat::Tuple(pt), Some(init)) = (&l.pat, &l.init) {
                    if let Expr::Tuple(et) = &*init.expr {
                        if pt.elems.len() == et.elems.len() && init.diverge.is_none() {
                            let mut temps = Vec::new();
                            let mut lets = Vec::new();
                            for (k, (p, e)) in pt.elems.iter().zip(&et.elems).enumerate() {
                                let tmp = format_ident!("__tuple{k}");
                                let v = self.expr(e)?;
                                temps.push(quote!(let #tmp = #v;));
                                let single = Stmt::Local(syn::Local {
                                    attrs: Vec::new(),
                                    let_token: l.let_token,
                                    pat: p.clone(),
                                    init: Some(syn::LocalInit {
                                        eq_token: init.eq_token,
                                        expr: Box::new(syn::parse_quote!(#tmp)),
                                        diverge: None,
                                    }),
                                    semi_token: l.semi_token,
                                });
                                lets.push(single);
                            }
                            let lets = lets.iter().map(|s| self.stmt(s)).collect::<syn::Result<Vec<_>>>()?;
                            return Ok(quote!(#(#temps)* #(#lets)*));
                        }
                    }
                }
                // `let (a, b) = f(...);`: immutable names bound to the parts of a value.
                if let (Pat::Tuple(pt), Some(init)) = (&l.pat, &l.init) {
                    if init.diverge.is_none() {
                        let mut names = Vec::new();
                        for p in &pt.elems {
                            match p {
                                Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                                    if let Some(m) = &pi.mutability {
                                        return err(
                                            m.span(),
                                            "`mut` inside a tuple pattern is not supported in kernels; bind \
                                             the part, then `let mut` it",
                                        );
                                    }
                                    names.push(pi.ident.clone());
                                }
                                Pat::Wild(w) => names.push(format_ident!("_", span = w.span())),
                                p => return err(p.span(), "a kernel tuple pattern binds plain names"),
                            }
                        }
                        let e = self.expr(&init.expr)?;
                        for n in &names {
                            self.declare(&n.to_string(), Binding::Plain);
                        }
                        return Ok(quote!(let (#(#names),*) = #e;));
                    }
                }
                let (pat, ty) = match &l.pat {
                    Pat::Type(pt) => (&*pt.pat, Some(&*pt.ty)),
                    p => (p, None),
                };
                let (id, mutable) = match pat {
                    Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                        (pi.ident.clone(), pi.mutability.is_some())
                    }
                    Pat::Wild(w) => (format_ident!("_", span = w.span()), false),
                    p => {
                        return err(
                            p.span(),
                            "only `let name = ...` and `let mut name = ...` are supported in kernels",
                        )
                    }
                };
                let Some(init) = &l.init else {
                    return err(l.span(), "a kernel `let` needs an initial value");
                };
                if let Some((_, d)) = &init.diverge {
                    return err(d.span(), "`let ... else` is not supported in kernels");
                }
                let e = self.expr(&init.expr)?;
                let d = dsl();
                let name = id.to_string();
                let out = match (mutable, ty) {
                    (true, Some(t)) => quote!(let #id = #d::var_typed::<#t>(#name, #e);),
                    (true, None) => quote!(let #id = #d::var(#name, #e);),
                    (false, Some(t)) if is_scalar(t, &[]) || is_generic_like(t) => {
                        quote!(let #id = #d::typed::<#t>(#e);)
                    }
                    (false, Some(t)) => quote!(let #id: #t = #e;),
                    (false, None) => quote!(let #id = #e;),
                };
                self.declare(&name, if mutable { Binding::Var } else { Binding::Plain });
                Ok(out)
            }
            // `use` and `const` items are plain Rust (compile-time names).
            Stmt::Item(i @ (syn::Item::Use(_) | syn::Item::Const(_))) => Ok(i.to_token_stream()),
            Stmt::Item(i) => err(
                i.span(),
                "items (fn, struct, ...) cannot be declared inside a kernel body; `use` and `const` can",
            ),
            Stmt::Macro(m) => err(m.span(), "macros are not supported in kernel bodies"),
            Stmt::Expr(e, semi) => {
                let t = self.expr(e)?;
                Ok(if semi.is_some() { quote!(#t;) } else { t })
            }
        }
    }

    /// `#[comptime] let mut name = init;`: a Rust variable of the build (a value, or a runtime
    /// value's handle, rebound by each assignment: no kernel variable), with the region depth
    /// it was declared at, which its assignments check.
    fn comptime_let(&mut self, l: &syn::Local) -> syn::Result<TokenStream2> {
        let d = dsl();
        let (pat, ty) = match &l.pat {
            Pat::Type(pt) => (&*pt.pat, Some(&*pt.ty)),
            p => (p, None),
        };
        let id = match pat {
            Pat::Ident(pi) if pi.mutability.is_some() && pi.by_ref.is_none() && pi.subpat.is_none() => {
                pi.ident.clone()
            }
            p => return err(
                p.span(),
                "#[comptime] marks a `let mut name` whose value changes while the kernel is built; a plain \
                     `let` already binds a compile-time value",
            ),
        };
        let Some(init) = &l.init else {
            return err(l.span(), "a kernel `let` needs an initial value");
        };
        if let Some((_, dv)) = &init.diverge {
            return err(dv.span(), "`let ... else` is not supported in kernels");
        }
        let e = self.expr(&init.expr)?;
        let depth = format_ident!("__comptime_depth_{}", id);
        let ty = ty.map(|t| quote!(: #t));
        self.declare(&id.to_string(), Binding::Comptime);
        Ok(quote!(let mut #id #ty = #e; let #depth = #d::region_depth();))
    }

    fn expr(&mut self, e: &Expr) -> syn::Result<TokenStream2> {
        let d = dsl();
        let span = e.span();
        Ok(match e {
            Expr::Lit(l) => l.to_token_stream(),
            Expr::Path(p) => {
                if let Some(id) = self.mut_var_ident(e) {
                    quote_spanned!(span=> #id.get())
                } else {
                    p.to_token_stream()
                }
            }
            Expr::Paren(p) => {
                let inner = self.expr(&p.expr)?;
                quote!((#inner))
            }
            Expr::Group(g) => self.expr(&g.expr)?,
            Expr::Block(b) => {
                if let Some(l) = &b.label {
                    return err(l.span(), "labeled blocks are not supported in kernels");
                }
                self.block(&b.block)?
            }
            Expr::Binary(b) => self.binary(b)?,
            Expr::Unary(u) => {
                let x = self.expr(&u.expr)?;
                match u.op {
                    UnOp::Neg(_) => group(quote_spanned!(span=> -#x)),
                    UnOp::Not(_) => group(quote_spanned!(span=> !#x)),
                    _ => return err(u.op.span(), "pointer dereference is not supported in kernels"),
                }
            }
            Expr::Cast(c) => {
                let x = self.expr(&c.expr)?;
                let t = &c.ty;
                quote_spanned!(span=> #d::cast::<#t, _>(#x))
            }
            Expr::Assign(a) => self.assign(&a.left, None, &a.right)?,
            Expr::Index(ix) => {
                let base = self.expr(&ix.expr)?;
                let i = self.expr(&ix.index)?;
                if matches!(&*ix.index, Expr::Range(_)) {
                    // A compile-time slice of a compile-time array (`&COEFFS[1..]`).
                    return Ok(quote_spanned!(span=> #base[#i]));
                }
                if self.is_mem_param(&ix.expr) {
                    quote_spanned!(span=> #d::Memory::load(&#base, #i))
                } else {
                    quote_spanned!(span=> #d::index_load(&#base, #i))
                }
            }
            Expr::If(i) => self.if_expr(i)?,
            Expr::While(w) => {
                if let Some(l) = &w.label {
                    return err(l.span(), "loop labels are not supported in kernels");
                }
                if let Expr::Let(l) = &*w.cond {
                    return err(l.span(), "`while let` is not supported in kernels");
                }
                let c = self.expr(&w.cond)?;
                let body = self.loop_body(|t| t.block(&w.body))?;
                quote!(#d::while_(|| #c, || #body))
            }
            Expr::Loop(l) => {
                if let Some(l) = &l.label {
                    return err(l.span(), "loop labels are not supported in kernels");
                }
                let body = self.loop_body(|t| t.block(&l.body))?;
                quote!(#d::loop_(|| #body))
            }
            Expr::ForLoop(f) => self.for_loop(f)?,
            Expr::Break(b) => {
                if let Some(l) = &b.label {
                    return err(l.span(), "loop labels are not supported in kernels");
                }
                if let Some(v) = &b.expr {
                    return err(v.span(), "`break` with a value is not supported in kernels");
                }
                self.check_jump(span, "break")?;
                quote_spanned!(span=> #d::break_())
            }
            Expr::Continue(c) => {
                if let Some(l) = &c.label {
                    return err(l.span(), "loop labels are not supported in kernels");
                }
                self.check_jump(span, "continue")?;
                quote_spanned!(span=> #d::continue_())
            }
            Expr::Return(r) => {
                if !self.closures.is_empty() {
                    return err(
                        r.span(),
                        "`return` inside a closure is not supported in kernels; end the closure's body with its value",
                    );
                }
                if self.in_device {
                    let v = match &r.expr {
                        Some(v) => self.expr(v)?,
                        None => quote!(()),
                    };
                    let conv = self.ret_conv.clone().unwrap_or(quote!(__v));
                    quote_spanned!(span=> { let __v = #v; #d::device_return(__ret, #conv) })
                } else {
                    if let Some(v) = &r.expr {
                        return err(
                            v.span(),
                            "a kernel returns nothing; write results to a `&mut [T]` parameter",
                        );
                    }
                    quote_spanned!(span=> #d::return_())
                }
            }
            Expr::MethodCall(m) => {
                let recv = self.expr(&m.receiver)?;
                let args = m.args.iter().map(|a| self.expr(a)).collect::<syn::Result<Vec<_>>>()?;
                let method = &m.method;
                let tf = &m.turbofish;
                quote_spanned!(span=> #recv.#method #tf (#(#args),*))
            }
            Expr::Call(c) => {
                let args = c.args.iter().map(|a| self.expr(a)).collect::<syn::Result<Vec<_>>>()?;
                // `f32::from_bits(x)` (and f64, f16, bf16) takes a runtime integer too.
                if let Expr::Path(p) = &*c.func {
                    let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
                    if p.qself.is_none()
                        && segs.len() == 2
                        && segs[1] == "from_bits"
                        && ["f16", "bf16", "f32", "f64"].contains(&segs[0].as_str())
                    {
                        let f = &p.path.segments[0].ident;
                        return Ok(quote_spanned!(span=> #d::from_bits::<#f, _>(#(#args),*)));
                    }
                }
                let func = match &*c.func {
                    Expr::Path(p) => p.to_token_stream(),
                    other => {
                        return err(other.span(), "only calls of named functions are supported in kernels")
                    }
                };
                quote_spanned!(span=> #func(#(#args),*))
            }
            Expr::Field(f) => {
                let base = self.expr(&f.base)?;
                let m = &f.member;
                quote_spanned!(span=> #base.#m)
            }
            Expr::Reference(r) => {
                if let (Some(_), Some(id)) = (&r.mutability, self.comptime_ident(&r.expr)) {
                    return Ok(quote_spanned!(span=> &mut #id));
                }
                if r.mutability.is_some() {
                    return err(
                        r.span(),
                        "`&mut` is not needed in kernels: memory handles are passed by value",
                    );
                }
                let x = self.expr(&r.expr)?;
                quote_spanned!(span=> &#x)
            }
            // A compile-time range (`(1..8).rev()`, `&COEFFS[1..]`); a runtime loop's range is
            // taken apart by `for_loop`.
            Expr::Range(r) => {
                let start = r.start.as_deref().map(|e| self.expr(e)).transpose()?;
                let end = r.end.as_deref().map(|e| self.expr(e)).transpose()?;
                let limits = &r.limits;
                quote_spanned!(span=> #start #limits #end)
            }
            Expr::Closure(c) => self.closure(c)?,
            Expr::Macro(m) if m.mac.path.is_ident("vec") => self.vec_macro(m)?,
            Expr::Macro(m) => {
                return err(m.span(), "macros are not supported in kernel bodies (but for `vec![..]`)")
            }
            Expr::Match(m) => self.match_expr(m)?,
            // A compile-time tuple (of runtime values, say): a device function's results.
            Expr::Tuple(t) => {
                let elems = t.elems.iter().map(|e| self.expr(e)).collect::<syn::Result<Vec<_>>>()?;
                if elems.len() == 1 {
                    quote_spanned!(span=> (#(#elems),*,))
                } else {
                    quote_spanned!(span=> (#(#elems),*))
                }
            }
            // A compile-time array (of runtime values, say); runtime-indexed memory is a
            // `local_array`.
            Expr::Array(a) => {
                let elems = a.elems.iter().map(|e| self.expr(e)).collect::<syn::Result<Vec<_>>>()?;
                quote_spanned!(span=> [#(#elems),*])
            }
            Expr::Repeat(r) => {
                let e = self.expr(&r.expr)?;
                let n = &r.len;
                quote_spanned!(span=> [#e; #n])
            }
            // A struct of device values (a tile, a generator state).
            Expr::Struct(st) => {
                if let Some(q) = &st.qself {
                    return err(q.lt_token.span, "qualified struct paths are not supported in kernels");
                }
                let path = &st.path;
                let mut fields = Vec::new();
                for fv in &st.fields {
                    let m = &fv.member;
                    let v = self.expr(&fv.expr)?;
                    fields.push(quote!(#m: #v));
                }
                let rest = match &st.rest {
                    Some(r) => {
                        let r = self.expr(r)?;
                        quote!(, ..#r)
                    }
                    None => quote!(),
                };
                quote_spanned!(span=> #path { #(#fields),* #rest })
            }
            Expr::Unsafe(u) => return err(u.unsafe_token.span(), "`unsafe` is not supported in kernels"),
            Expr::Try(t) => return err(t.question_token.span(), "`?` is not supported in kernels"),
            Expr::Let(l) => {
                return err(l.span(), "`let` in an expression is only supported as the condition of an `if`")
            }
            other => return err(other.span(), "this expression is not supported in kernels"),
        })
    }

    fn binary(&mut self, b: &syn::ExprBinary) -> syn::Result<TokenStream2> {
        let d = dsl();
        let span = b.op.span();
        let compound = match b.op {
            BinOp::AddAssign(_) => Some(quote!(+)),
            BinOp::SubAssign(_) => Some(quote!(-)),
            BinOp::MulAssign(_) => Some(quote!(*)),
            BinOp::DivAssign(_) => Some(quote!(/)),
            BinOp::RemAssign(_) => Some(quote!(%)),
            BinOp::BitAndAssign(_) => Some(quote!(&)),
            BinOp::BitOrAssign(_) => Some(quote!(|)),
            BinOp::BitXorAssign(_) => Some(quote!(^)),
            BinOp::ShlAssign(_) => Some(quote!(<<)),
            BinOp::ShrAssign(_) => Some(quote!(>>)),
            _ => None,
        };
        if let Some(op) = compound {
            return self.assign(&b.left, Some(op), &b.right);
        }
        let l = self.expr(&b.left)?;
        let r = self.expr(&b.right)?;
        let cmp = |op: &str| {
            let op = format_ident!("{}", op);
            quote_spanned!(span=> #d::DslCmp::dsl_cmp(#l, ::ferrocm_kernel::ir::CmpOp::#op, #r))
        };
        // `==`/`!=` need only `PartialEq` of plain values.
        let eq = |op: &str| {
            let op = format_ident!("{}", op);
            quote_spanned!(span=> #d::DslEq::dsl_eq(#l, ::ferrocm_kernel::ir::CmpOp::#op, #r))
        };
        Ok(match b.op {
            BinOp::Eq(_) => eq("Eq"),
            BinOp::Ne(_) => eq("Ne"),
            BinOp::Lt(_) => cmp("Lt"),
            BinOp::Le(_) => cmp("Le"),
            BinOp::Gt(_) => cmp("Gt"),
            BinOp::Ge(_) => cmp("Ge"),
            BinOp::And(_) => quote_spanned!(span=> #d::DslLogic::and_then(#l, || #r)),
            BinOp::Or(_) => quote_spanned!(span=> #d::DslLogic::or_else(#l, || #r)),
            op => group(quote_spanned!(span=> #l #op #r)),
        })
    }

    /// `left = right` or `left op= right`.
    fn assign(&mut self, left: &Expr, op: Option<TokenStream2>, right: &Expr) -> syn::Result<TokenStream2> {
        let d = dsl();
        let r = self.expr(right)?;
        // A `#[comptime] let mut` binding, or an element of one: Rust assignment, checked to
        // happen outside runtime control flow opened since the binding.
        let comptime = match left {
            Expr::Index(ix) => self.comptime_ident(&ix.expr).map(|id| (id, Some(&ix.index))),
            e => self.comptime_ident(e).map(|id| (id, None)),
        };
        if let Some((id, index)) = comptime {
            let depth = format_ident!("__comptime_depth_{}", id);
            let name = id.to_string();
            let place = match index {
                Some(i) => {
                    let i = self.expr(i)?;
                    quote!(#id[#i])
                }
                None => quote!(#id),
            };
            let value = match op {
                None => quote!(__r),
                Some(op) => quote!(#place #op __r),
            };
            return Ok(quote_spanned!(left.span()=> {
                let __r = #r;
                #d::comptime_assign(#depth, #name);
                #place = #value;
            }));
        }
        if let Some(id) = self.mut_var_ident(left) {
            return Ok(match op {
                None => quote!(#id.set(#r)),
                Some(op) => quote!({ let __r = #r; #id.set(#id.get() #op __r) }),
            });
        }
        match left {
            Expr::Index(ix) if self.is_mem_param(&ix.expr) => {
                let base = self.expr(&ix.expr)?;
                let i = self.expr(&ix.index)?;
                let span = ix.span();
                Ok(match op {
                    None => quote_spanned!(span=> #d::MemoryMut::store(&#base, #i, #r)),
                    Some(op) => quote_spanned!(span=> {
                        let __i = #i;
                        let __r = #r;
                        #d::MemoryMut::store(&#base, __i, #d::Memory::load(&#base, __i) #op __r)
                    }),
                })
            }
            Expr::Index(ix) => {
                let base = self.expr(&ix.expr)?;
                let i = self.expr(&ix.index)?;
                let span = ix.span();
                Ok(match op {
                    None => quote_spanned!(span=> #d::index_store(&#base, #i, #r)),
                    Some(op) => quote_spanned!(span=> {
                        let __i = #i;
                        let __r = #r;
                        #d::index_store(&#base, __i, #d::index_load(&#base, __i) #op __r)
                    }),
                })
            }
            Expr::Paren(p) => self.assign(&p.expr, op, right),
            // A field that holds a variable (`self.index = i`): a `Place`.
            Expr::Field(_) => {
                let place = self.expr(left)?;
                let span = left.span();
                Ok(match op {
                    None => quote_spanned!(span=> #d::assign(&#place, #r)),
                    Some(op) => quote_spanned!(span=> {
                        let __r = #r;
                        #d::assign(&#place, #d::Place::value(&#place) #op __r)
                    }),
                })
            }
            Expr::Path(p) => err(
                p.span(),
                "cannot assign to an immutable binding: declare it with `let mut` to make it a kernel variable",
            ),
            other => err(other.span(), "only variables and indexed elements can be assigned in kernels"),
        }
    }

    fn if_expr(&mut self, i: &syn::ExprIf) -> syn::Result<TokenStream2> {
        let d = dsl();
        // `if let` matches a compile-time value: Rust's `if let`.
        if let Expr::Let(l) = &*i.cond {
            let mut names = Vec::new();
            pattern_names(&l.pat, &mut names)?;
            let e = self.expr(&l.expr)?;
            self.push_plain(&names);
            let then = self.block(&i.then_branch);
            self.scopes.pop();
            let then = then?;
            let els = match &i.else_branch {
                Some((_, e)) => {
                    let e = self.expr(e)?;
                    quote!(else { #e })
                }
                None => quote!(),
            };
            let pat = &l.pat;
            return Ok(quote_spanned!(i.if_token.span=> if let #pat = #e #then #els));
        }
        let c = self.expr(&i.cond)?;
        let then = self.block(&i.then_branch)?;
        let els = match &i.else_branch {
            Some((_, e)) => self.expr(e)?,
            None => quote!({}),
        };
        Ok(quote_spanned!(i.if_token.span=> #d::if_else(#c, || #then, || #els)))
    }

    /// `for PAT in ITER` over anything but a range: a compile-time iterator (`vals.iter()
    /// .enumerate()`, `(1..8).rev()`), unrolled while the kernel is built.
    fn unrolled_for(&mut self, f: &syn::ExprForLoop) -> syn::Result<TokenStream2> {
        let d = dsl();
        let mut names = Vec::new();
        pattern_names(&f.pat, &mut names)?;
        let iter = self.expr(&f.expr)?;
        self.push_plain(&names);
        let body = self.loop_body(|t| t.block(&f.body));
        self.scopes.pop();
        let body = body?;
        let pat = &f.pat;
        Ok(quote_spanned!(f.for_token.span=> #d::unrolled(|| for #pat in #iter #body)))
    }

    /// A closure: Rust's, with its body rewritten (it is called while the kernel is built, so
    /// it is inlined where called). `return` and jumps out of it are errors.
    fn closure(&mut self, c: &syn::ExprClosure) -> syn::Result<TokenStream2> {
        if let Some(a) = &c.asyncness {
            return err(a.span(), "async closures are not supported in kernels");
        }
        let mut names = Vec::new();
        for p in &c.inputs {
            pattern_names(p, &mut names)?;
        }
        self.push_plain(&names);
        self.closures.push(0);
        let body = self.expr(&c.body);
        self.closures.pop();
        self.scopes.pop();
        let body = body?;
        let (capture, inputs, output) = (&c.capture, &c.inputs, &c.output);
        Ok(quote_spanned!(c.or1_token.span=> #capture |#inputs| #output #body))
    }

    /// `match` on a compile-time value (a plan's enum, an `Option`): Rust's `match`.
    fn match_expr(&mut self, m: &syn::ExprMatch) -> syn::Result<TokenStream2> {
        let scrutinee = self.expr(&m.expr)?;
        let mut arms = Vec::new();
        for arm in &m.arms {
            let mut names = Vec::new();
            pattern_names(&arm.pat, &mut names)?;
            self.push_plain(&names);
            let r = (|| {
                let guard = match &arm.guard {
                    Some((i, g)) => {
                        let g = self.expr(g)?;
                        quote!(#i #g)
                    }
                    None => quote!(),
                };
                let body = self.expr(&arm.body)?;
                Ok::<_, syn::Error>((guard, body))
            })();
            self.scopes.pop();
            let (guard, body) = r?;
            let pat = &arm.pat;
            arms.push(quote!(#pat #guard => #body,));
        }
        Ok(quote_spanned!(m.match_token.span=> match #scrutinee { #(#arms)* }))
    }

    /// `vec![a, b]` and `vec![x; n]`: a compile-time `Vec` (of runtime values, say).
    fn vec_macro(&mut self, m: &syn::ExprMacro) -> syn::Result<TokenStream2> {
        let tokens = &m.mac.tokens;
        let arr: Expr = syn::parse2(quote!([#tokens]))?;
        let span = m.span();
        Ok(match &arr {
            Expr::Array(a) => {
                let elems = a.elems.iter().map(|e| self.expr(e)).collect::<syn::Result<Vec<_>>>()?;
                quote_spanned!(span=> ::std::vec![#(#elems),*])
            }
            Expr::Repeat(r) => {
                let (e, n) = (self.expr(&r.expr)?, self.expr(&r.len)?);
                quote_spanned!(span=> ::std::vec![#e; #n])
            }
            other => return err(other.span(), "`vec!` takes `a, b, ..` or `x; n`"),
        })
    }

    fn for_loop(&mut self, f: &syn::ExprForLoop) -> syn::Result<TokenStream2> {
        let d = dsl();
        if let Some(l) = &f.label {
            return err(l.span(), "loop labels are not supported in kernels");
        }
        // `(a..b).step_by(s)`, `a..b` or `a..=b`; anything else iterates at compile time.
        let (range, step) = match &*f.expr {
            Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
                let mut inner = &*m.receiver;
                while let Expr::Paren(p) = inner {
                    inner = &p.expr;
                }
                (inner, Some(&m.args[0]))
            }
            e => (e, None),
        };
        let Expr::Range(r) = range else {
            return self.unrolled_for(f);
        };
        let id = match &*f.pat {
            Pat::Ident(pi) if pi.mutability.is_none() && pi.by_ref.is_none() => pi.ident.clone(),
            Pat::Wild(_) => format_ident!("_"),
            p => return err(p.span(), "a `for` over a range binds a plain name"),
        };
        let (Some(start), Some(end)) = (&r.start, &r.end) else {
            return err(r.span(), "kernel `for` ranges need both bounds");
        };
        let start = self.expr(start)?;
        let mut end = self.expr(end)?;
        if matches!(r.limits, syn::RangeLimits::Closed(_)) {
            end = quote!((#end + 1));
        }
        self.scopes.push(vec![(id.to_string(), Binding::Plain)]);
        let body = self.loop_body(|t| t.block(&f.body));
        self.scopes.pop();
        let body = body?;
        Ok(match step {
            None => quote_spanned!(f.for_token.span=> #d::for_range(#start, #end, |#id| #body)),
            Some(s) => {
                let s = self.expr(s)?;
                quote_spanned!(f.for_token.span=> #d::for_range_step(#start, #end, #s, |#id| #body))
            }
        })
    }
}

/// Collects the names `pat` binds (into `out`, for scoping). Patterns bind compile-time values
/// (or runtime values' handles) by name; a `mut` binding is rejected, since a mutable name in a
/// kernel is a `let mut` (a kernel variable) or a `#[comptime] let mut`.
fn pattern_names(pat: &Pat, out: &mut Vec<String>) -> syn::Result<()> {
    match pat {
        Pat::Ident(pi) => {
            if let Some(m) = &pi.mutability {
                return err(
                    m.span(),
                    "`mut` bindings in patterns are not supported in kernels; bind the value, then `let mut` it \
                     (a kernel variable) or `#[comptime] let mut` it",
                );
            }
            out.push(pi.ident.to_string());
            if let Some((_, sub)) = &pi.subpat {
                pattern_names(sub, out)?;
            }
        }
        Pat::Wild(_) | Pat::Lit(_) | Pat::Path(_) | Pat::Range(_) | Pat::Rest(_) | Pat::Const(_) => {}
        Pat::Reference(r) => {
            if let Some(m) = &r.mutability {
                return err(m.span(), "`&mut` patterns are not supported in kernels");
            }
            pattern_names(&r.pat, out)?;
        }
        Pat::Tuple(t) => t.elems.iter().try_for_each(|p| pattern_names(p, out))?,
        Pat::TupleStruct(t) => t.elems.iter().try_for_each(|p| pattern_names(p, out))?,
        Pat::Slice(t) => t.elems.iter().try_for_each(|p| pattern_names(p, out))?,
        Pat::Or(o) => o.cases.iter().try_for_each(|p| pattern_names(p, out))?,
        Pat::Struct(st) => st.fields.iter().try_for_each(|f| pattern_names(&f.pat, out))?,
        Pat::Paren(p) => pattern_names(&p.pat, out)?,
        Pat::Type(t) => pattern_names(&t.pat, out)?,
        other => return err(other.span(), "this pattern is not supported in kernels"),
    }
    Ok(())
}

/// Wraps tokens in an invisible group: keeps precedence without parentheses (and without
/// `unused_parens` warnings at the user's spans).
fn group(ts: TokenStream2) -> TokenStream2 {
    proc_macro2::TokenTree::Group(proc_macro2::Group::new(proc_macro2::Delimiter::None, ts)).into()
}

/// A single-segment type name that is not a known non-scalar (a generic element type, probably).
fn is_generic_like(t: &Type) -> bool {
    if let Type::Path(p) = t {
        if let Some(id) = p.path.get_ident() {
            let s = id.to_string();
            return s.len() == 1 && s.chars().all(|c| c.is_ascii_uppercase());
        }
    }
    false
}
